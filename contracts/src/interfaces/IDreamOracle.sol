// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

interface IDreamOracle {
    event DreamStarted(address indexed golem, uint64 at);
    event DreamEnded(address indexed golem, uint64 at, uint64 duration);

    error AlreadyDreaming(address golem);
    error NotDreaming(address golem);

    function isDreaming(
        address golem
    ) external view returns (bool);
    /// @return since when the current dream started, 0 when the Golem is awake.
    function dreamingSince(
        address golem
    ) external view returns (uint64 since);
}
