// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { IDreamOracle } from "../interfaces/IDreamOracle.sol";

/// @title DreamModeEnforcer
/// @notice On-chain atonia: nothing executes while the Golem is dreaming (DreamOracle), whatever its
///         runtime does. Defense in depth behind the runtime's own dream scheduler.
/// @dev Terms: `abi.encodePacked(address golem)` (20 bytes). One oracle staticcall per execution.
///      Stateless.
contract DreamModeEnforcer is CaveatEnforcer {
    IDreamOracle public immutable dreamOracle;

    error ZeroAddress();
    error InvalidTermsLength(uint256 length);
    error GolemDreaming(address golem, uint64 since);

    /// @param dreamOracle_ The oracle dream state is read from.
    constructor(
        address dreamOracle_
    ) {
        if (dreamOracle_ == address(0)) revert ZeroAddress();
        dreamOracle = IDreamOracle(dreamOracle_);
    }

    /// @notice Refuses every execution while the Golem dreams.
    /// @dev Terms: `abi.encodePacked(address golem)`. Reverts `InvalidTermsLength`, `GolemDreaming(golem, since)`.
    function beforeHook(
        bytes calldata terms,
        bytes calldata,
        bytes32,
        bytes calldata,
        bytes32,
        address,
        address
    ) public view override {
        address golem = getTermsInfo(terms);
        uint64 since = dreamOracle.dreamingSince(golem);
        if (since != 0) revert GolemDreaming(golem, since);
    }

    /// @notice Decodes the Golem whose dreams gate this delegation.
    /// @dev Reverts `InvalidTermsLength` unless 20 bytes.
    function getTermsInfo(
        bytes calldata terms
    ) public pure returns (address golem) {
        if (terms.length != 20) revert InvalidTermsLength(terms.length);
        // forge-lint: disable-next-line(unsafe-typecast)
        golem = address(bytes20(terms));
    }
}
