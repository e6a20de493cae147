// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "../enforcers/CaveatEnforcer.sol";
import { ExecutionLib, Execution } from "../libraries/ExecutionLib.sol";
import { IVitalityOracle } from "../interfaces/IVitalityOracle.sol";
import { IDreamOracle } from "../interfaces/IDreamOracle.sol";

/// @title BenchFoldedGolemEnforcer
/// @notice BENCH-ONLY PROTOTYPE: never deploy to a real chain, never put in a delegation Bardo builds.
///         GolemPhase + DreamMode + MortalityTimeWindow folded into one caveat, so `npm run bench -- gas`
///         can measure what folding the oracle-reading checks saves against the separate enforcers.
///         Not audited; no admin, no views, no TypeScript encoder.
/// @dev Terms: `abi.encodePacked(address golem, uint64 startTime, uint64 endTime)` (36 bytes).
///      Checks, in order: the inclusive window (as MortalityTimeWindowEnforcer), the Golem is awake (as
///      DreamModeEnforcer: one DreamOracle staticcall), then the phase gate with the default masks (as
///      GolemPhaseEnforcer: one VitalityOracle staticcall and one selector-table SLOAD per call, same
///      errors, same table for the selectors a runway or an action uses). One caveat means one set of
///      four DelegationManager hook calls instead of three; both oracle staticcalls remain (one oracle
///      holding phase and dream state would save the second). Deployed with dreamOracle = address(0) it
///      skips the dream check: GolemPhase + MortalityTimeWindow only, the checks of the runway as built,
///      and the cost a single phase-and-dream oracle read would have.
contract BenchFoldedGolemEnforcer is CaveatEnforcer {
    uint8 internal constant OPEN = 0x01;
    uint8 internal constant CLOSE = 0x02;
    uint8 internal constant TRANSFER = 0x04;
    uint8 internal constant SUBDELEGATION = 0x08;
    uint8 internal constant SETTLEMENT = 0x10;
    bytes5 internal constant DEFAULT_PHASE_MASKS = 0x1F17161610;

    IVitalityOracle public immutable vitalityOracle;
    /// @dev address(0): no dream gate (the bench measures both forms).
    IDreamOracle public immutable dreamOracle;

    mapping(bytes4 selector => uint8 classMask) private _actionClass;

    error ZeroAddress();
    error InvalidTermsLength(uint256 length);
    error InvalidWindow(uint256 startTime, uint256 endTime);
    error DelegationNotYetActive(uint256 current, uint256 startTime);
    error DelegationExpired(uint256 current, uint256 endTime);
    error GolemDreaming(address golem, uint64 since);
    error GolemNotRegistered(address golem);
    error UnclassifiedAction(address target, bytes4 selector);
    error ActionNotAllowedInPhase(address golem, uint8 phase, bytes4 selector, uint8 requiredClasses);

    constructor(address vitalityOracle_, address dreamOracle_) {
        if (vitalityOracle_ == address(0)) revert ZeroAddress();
        vitalityOracle = IVitalityOracle(vitalityOracle_);
        dreamOracle = IDreamOracle(dreamOracle_);
        // The GolemPhaseEnforcer entries the bench's executions and the common Golem actions need.
        _actionClass[0xa9059cbb] = TRANSFER; // transfer(address,uint256)
        _actionClass[0x23b872dd] = TRANSFER; // transferFrom(address,address,uint256)
        _actionClass[0x095ea7b3] = OPEN; // approve(address,uint256)
        _actionClass[0x6e553f65] = OPEN; // ERC-4626 deposit
        _actionClass[0xb460af94] = CLOSE; // ERC-4626 withdraw
        _actionClass[0xba087652] = SETTLEMENT; // ERC-4626 redeem
        _actionClass[0x04e45aaf] = OPEN; // SwapRouter02 exactInputSingle
        _actionClass[bytes4(0)] = TRANSFER; // empty calldata: plain native transfer
    }

    function beforeHook(
        bytes calldata terms,
        bytes calldata,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32,
        address,
        address redeemer
    )
        public
        view
        override
    {
        address golem = _checkWindowAndDream(terms);
        _checkPhase(golem, mode, executionCallData, redeemer);
    }

    /// @dev MortalityTimeWindowEnforcer's and DreamModeEnforcer's checks; returns the Golem.
    function _checkWindowAndDream(bytes calldata terms) private view returns (address golem) {
        if (terms.length != 36) revert InvalidTermsLength(terms.length);
        // forge-lint: disable-next-line(unsafe-typecast)
        golem = address(bytes20(terms[0:20]));
        uint256 startTime = uint64(bytes8(terms[20:28]));
        uint256 endTime = uint64(bytes8(terms[28:36]));
        if (endTime <= startTime) revert InvalidWindow(startTime, endTime);
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp < startTime) revert DelegationNotYetActive(block.timestamp, startTime);
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > endTime) revert DelegationExpired(block.timestamp, endTime);
        if (address(dreamOracle) == address(0)) return golem;
        uint64 since = dreamOracle.dreamingSince(golem);
        if (since != 0) revert GolemDreaming(golem, since);
    }

    /// @dev GolemPhaseEnforcer's check with the default masks.
    function _checkPhase(address golem, bytes32 mode, bytes calldata executionCallData, address redeemer) private view {
        (bool registered, uint8 phase) = vitalityOracle.getPhase(golem);
        if (!registered) revert GolemNotRegistered(golem);
        uint8 mask = phase > 4 ? 0 : uint8(DEFAULT_PHASE_MASKS[phase]);
        uint8 extra = redeemer == golem ? 0 : SUBDELEGATION;

        bytes1 callType = ExecutionLib.callType(mode);
        if (callType == ExecutionLib.CALLTYPE_SINGLE) {
            (address target,, bytes calldata callData) = ExecutionLib.decodeSingle(executionCallData);
            bytes4 selector = callData.length >= 4 ? bytes4(callData[:4]) : bytes4(0);
            _check(golem, phase, mask, extra, target, selector, callData.length);
        } else if (callType == ExecutionLib.CALLTYPE_BATCH) {
            Execution[] memory executions = ExecutionLib.decodeBatch(executionCallData);
            for (uint256 i; i < executions.length; ++i) {
                bytes memory callData = executions[i].callData;
                _check(golem, phase, mask, extra, executions[i].target, ExecutionLib.selectorOf(callData), callData.length);
            }
        } else {
            revert ExecutionLib.UnsupportedCallType(callType);
        }
    }

    function _check(
        address golem,
        uint8 phase,
        uint8 mask,
        uint8 extra,
        address target,
        bytes4 selector,
        uint256 callDataLength
    )
        private
        view
    {
        if (callDataLength != 0 && selector == bytes4(0)) revert UnclassifiedAction(target, selector);
        uint8 required = _actionClass[selector];
        if (required == 0) revert UnclassifiedAction(target, selector);
        required |= extra;
        if (required & mask != required) revert ActionNotAllowedInPhase(golem, phase, selector, required);
    }
}
