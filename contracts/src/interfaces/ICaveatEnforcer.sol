// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @title ICaveatEnforcer
/// @notice The four-hook caveat interface the MetaMask DelegationManager calls on every caveat.
/// @dev ModeCode is the framework's `type ModeCode is bytes32`; it is ABI-identical to bytes32, so the
///      selectors match the framework's. Reverting blocks the redemption.
interface ICaveatEnforcer {
    function beforeAllHook(
        bytes calldata terms,
        bytes calldata args,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32 delegationHash,
        address delegator,
        address redeemer
    ) external;
    function beforeHook(
        bytes calldata terms,
        bytes calldata args,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32 delegationHash,
        address delegator,
        address redeemer
    ) external;
    function afterHook(
        bytes calldata terms,
        bytes calldata args,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32 delegationHash,
        address delegator,
        address redeemer
    ) external;
    function afterAllHook(
        bytes calldata terms,
        bytes calldata args,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32 delegationHash,
        address delegator,
        address redeemer
    ) external;
}
