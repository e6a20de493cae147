// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { ICaveatEnforcer } from "../interfaces/ICaveatEnforcer.sol";

/// @title CaveatEnforcer
/// @notice Base for Bardo enforcers: every hook is a no-op unless an enforcer overrides it.
/// @dev Mirrors the framework's abstract CaveatEnforcer so our enforcers plug into the real
///      DelegationManager. State an enforcer keeps is keyed by (msg.sender, delegationHash), where
///      msg.sender is the DelegationManager, so one deployment serves every manager.
abstract contract CaveatEnforcer is ICaveatEnforcer {
    function beforeAllHook(
        bytes calldata,
        bytes calldata,
        bytes32,
        bytes calldata,
        bytes32,
        address,
        address
    ) public virtual { }
    function beforeHook(
        bytes calldata,
        bytes calldata,
        bytes32,
        bytes calldata,
        bytes32,
        address,
        address
    ) public virtual { }
    function afterHook(
        bytes calldata,
        bytes calldata,
        bytes32,
        bytes calldata,
        bytes32,
        address,
        address
    ) public virtual { }
    function afterAllHook(
        bytes calldata,
        bytes calldata,
        bytes32,
        bytes calldata,
        bytes32,
        address,
        address
    ) public virtual { }
}
