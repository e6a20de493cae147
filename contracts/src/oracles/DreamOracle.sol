// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IDreamOracle } from "../interfaces/IDreamOracle.sol";

/// @title DreamOracle
/// @notice On-chain record of a Golem's dream cycles, read by DreamModeEnforcer. Guarantees: only a
///         Golem's own key opens or closes its dreams (state is keyed by msg.sender), and a dream lasts
///         from `startDream` until that key calls `endDream`.
/// @dev One slot per Golem: the start time of the current dream, 0 when awake.
contract DreamOracle is IDreamOracle {
    mapping(address golem => uint64 since) private _dreamingSince;

    /// @notice Begins a dream: from this block, every DreamMode caveat naming the caller fails.
    /// @dev Reverts `AlreadyDreaming(golem)`.
    function startDream() external {
        if (_dreamingSince[msg.sender] != 0) revert AlreadyDreaming(msg.sender);
        uint64 at = uint64(block.timestamp);
        _dreamingSince[msg.sender] = at;
        emit DreamStarted(msg.sender, at);
    }

    /// @notice Ends the caller's dream; its delegations work again.
    /// @dev Reverts `NotDreaming(golem)`.
    function endDream() external {
        uint64 since = _dreamingSince[msg.sender];
        if (since == 0) revert NotDreaming(msg.sender);
        delete _dreamingSince[msg.sender];
        uint64 at = uint64(block.timestamp);
        emit DreamEnded(msg.sender, at, at - since);
    }

    /// @notice Whether the Golem is dreaming now.
    function isDreaming(
        address golem
    ) external view returns (bool) {
        return _dreamingSince[golem] != 0;
    }

    /// @notice When the current dream started, 0 when the Golem is awake.
    function dreamingSince(
        address golem
    ) external view returns (uint64) {
        return _dreamingSince[golem];
    }
}
