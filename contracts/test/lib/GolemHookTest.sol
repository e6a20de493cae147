// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "./Test.sol";
import { Execution } from "../../src/libraries/ExecutionLib.sol";
import { ICaveatEnforcer } from "../../src/interfaces/ICaveatEnforcer.sol";

/// Helpers for the oracle-backed enforcer suites: call the hooks the way the DelegationManager does
/// (msg.sender = the manager, single = encodePacked(target, value, callData), batch = encode(Execution[])).
abstract contract GolemHookTest is Test {
    address internal constant MANAGER = address(0xDE1E);
    address internal constant DELEGATOR = address(0xA11CE);
    bytes32 internal constant HASH = keccak256("delegation");
    bytes32 internal constant SINGLE = bytes32(0);
    bytes32 internal constant BATCH = bytes32(bytes1(0x01));
    bytes32 internal constant SINGLE_TRY = bytes32(bytes2(0x0001));
    bytes32 internal constant DELEGATECALL = bytes32(bytes1(0xff));

    function _single(
        address target,
        uint256 value,
        bytes memory callData
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(target, value, callData);
    }

    function _batch(
        Execution[] memory executions
    ) internal pure returns (bytes memory) {
        return abi.encode(executions);
    }

    function _exec(
        address target,
        bytes memory callData
    ) internal pure returns (Execution memory) {
        return Execution(target, 0, callData);
    }

    /// Runs beforeHook as the manager would; reverts bubble up to vm.expectRevert.
    function _before(
        ICaveatEnforcer enforcer,
        bytes memory terms,
        bytes32 mode,
        bytes memory executionCallData,
        address redeemer
    ) internal {
        vm.prank(MANAGER);
        enforcer.beforeHook(terms, "", mode, executionCallData, HASH, DELEGATOR, redeemer);
    }

    /// Same as _before but reports success instead of reverting (for fuzz and invariant bookkeeping).
    function _passes(
        ICaveatEnforcer enforcer,
        bytes memory terms,
        bytes32 mode,
        bytes memory executionCallData,
        address redeemer
    ) internal returns (bool ok) {
        vm.prank(MANAGER);
        try enforcer.beforeHook(terms, "", mode, executionCallData, HASH, DELEGATOR, redeemer) {
            ok = true;
        } catch {
            ok = false;
        }
    }
}
