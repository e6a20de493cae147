// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { ExecutionLib, Execution } from "../libraries/ExecutionLib.sol";
import { IVitalityOracle } from "../interfaces/IVitalityOracle.sol";
import { Ownable2Step } from "../access/Ownable2Step.sol";

/// @title GolemPhaseEnforcer
/// @notice Lets a delegation act only in the ways the Golem's current behavioral phase allows, as
///         reported by the VitalityOracle: Thriving does everything, Stable spawns no Replicants,
///         Conservation and Declining open nothing new, Terminal only settles. An unregistered or dead
///         Golem can do nothing, and a call the selector table does not classify is refused. The terms
///         may also carry the delegation's life window, so one caveat keeps the whole promise "the Golem
///         may not act out of phase or after death": nothing executes before `startTime` or after
///         `endTime` (inclusive, as MortalityTimeWindowEnforcer). Whatever the selector table says, no
///         execution may target the delegator's own account or the DelegationManager calling the hook:
///         those are where delegations are enabled and disabled, so a Golem could otherwise undo the
///         owner's revocation or grant itself new authority.
/// @dev Terms, all `abi.encodePacked`:
///      - 20 bytes `(address golem)`;
///      - 25 bytes `(address golem, bytes5 phaseMasks)`;
///      - 36 bytes `(address golem, uint64 startTime, uint64 endTime)`;
///      - 41 bytes `(address golem, bytes5 phaseMasks, uint64 startTime, uint64 endTime)`.
///      Byte i of `phaseMasks` is the set of action classes phase i allows for this delegation
///      (overriding the defaults). Without a window the delegation is unbounded in time (start 0, end
///      `type(uint64).max`); `startTime > endTime` is refused, `startTime == endTime` is one valid second.
///      Every execution (batch included) needs all bits of its class, plus SUBDELEGATION when
///      `redeemer != golem`, in the mask of the current phase. The selector -> class table is seeded
///      with real selectors and kept up to date by the owner (the phase-table admin, a different key from
///      the VitalityOracle's owner) without redeploying; the role moves in two steps (Ownable2Step).
///      Stateless, so try-mode is accepted.
contract GolemPhaseEnforcer is CaveatEnforcer, Ownable2Step {
    uint8 public constant OPEN = 0x01;
    uint8 public constant CLOSE = 0x02;
    uint8 public constant TRANSFER = 0x04;
    uint8 public constant SUBDELEGATION = 0x08;
    uint8 public constant SETTLEMENT = 0x10;
    uint8 internal constant ALL_CLASSES = 0x1F;

    /// @notice Default masks, byte i for phase i: Thriving 0x1F, Stable 0x17, Conservation 0x16,
    ///         Declining 0x16, Terminal 0x10.
    bytes5 public constant DEFAULT_PHASE_MASKS = 0x1F17161610;

    /// @notice The end `getTermsInfo` reports for terms without a window: never.
    uint64 public constant NO_END = type(uint64).max;

    IVitalityOracle public immutable vitalityOracle;

    /// @dev The key bytes4(0) stands for empty calldata (a plain native transfer).
    mapping(bytes4 selector => uint8 classMask) private _actionClass;

    event ActionClassSet(bytes4 indexed selector, uint8 classMask);

    error ZeroAddress();
    error InvalidClassMask(uint8 classMask);
    error InvalidTermsLength(uint256 length);
    error GolemNotRegistered(address golem);
    error UnclassifiedAction(address target, bytes4 selector);
    error ProtectedTarget(address target, bytes4 selector, address delegator, address delegationManager);
    error ActionNotAllowedInPhase(address golem, uint8 phase, bytes4 selector, uint8 requiredClasses);
    // The window errors are MortalityTimeWindowEnforcer's, same names and arguments (so same selectors).
    error InvalidWindow(uint256 startTime, uint256 endTime);
    error DelegationNotYetActive(uint256 current, uint256 startTime);
    error DelegationExpired(uint256 current, uint256 endTime);

    /// @param vitalityOracle_ The oracle the phase is read from.
    /// @param tableOwner The key that may reclassify selectors: selectors are configuration, not code.
    constructor(
        address vitalityOracle_,
        address tableOwner
    ) Ownable2Step(tableOwner) {
        if (vitalityOracle_ == address(0) || tableOwner == address(0)) revert ZeroAddress();
        vitalityOracle = IVitalityOracle(vitalityOracle_);

        // ERC-20
        _setActionClass(0xa9059cbb, TRANSFER); // transfer(address,uint256)
        _setActionClass(0x23b872dd, TRANSFER); // transferFrom(address,address,uint256)
        _setActionClass(0x095ea7b3, OPEN); // approve(address,uint256)
        // ERC-4626
        _setActionClass(0x6e553f65, OPEN); // deposit(uint256,address)
        _setActionClass(0x94bf804d, OPEN); // mint(uint256,address)
        _setActionClass(0xb460af94, CLOSE); // withdraw(uint256,address,address)
        _setActionClass(0xba087652, SETTLEMENT); // redeem(uint256,address,address)
        // Uniswap SwapRouter02
        _setActionClass(0x04e45aaf, OPEN); // exactInputSingle
        _setActionClass(0xb858183f, OPEN); // exactInput
        _setActionClass(0x5023b4df, OPEN); // exactOutputSingle
        _setActionClass(0x09b81346, OPEN); // exactOutput
        // Uniswap SwapRouter v1 (with deadline)
        _setActionClass(0x414bf389, OPEN); // exactInputSingle
        _setActionClass(0xc04b8d59, OPEN); // exactInput
        // Uniswap V2 router
        _setActionClass(0x38ed1739, OPEN); // swapExactTokensForTokens
        _setActionClass(0xe8e33700, OPEN); // addLiquidity
        _setActionClass(0xbaa2abde, CLOSE); // removeLiquidity
        // Uniswap V3 NonfungiblePositionManager
        _setActionClass(0x88316456, OPEN); // mint
        _setActionClass(0x219f5d17, OPEN); // increaseLiquidity
        _setActionClass(0x0c49ccbe, CLOSE); // decreaseLiquidity
        _setActionClass(0xfc6f7865, SETTLEMENT); // collect
        _setActionClass(0x42966c68, SETTLEMENT); // burn(uint256)
        // Circle CCTP V2 TokenMessengerV2: moving funds to another chain starts something new there
        _setActionClass(0x8e0250ee, OPEN); // depositForBurn(uint256,uint32,bytes32,address,bytes32,uint256,uint32)
        // DelegationManager: creating or disabling delegations is re-delegation authority
        _setActionClass(0x3ed01015, SUBDELEGATION); // enableDelegation(Delegation)
        _setActionClass(0x49934047, SUBDELEGATION); // disableDelegation(Delegation)
        // Empty calldata: plain native transfer (runway, payments)
        _setActionClass(bytes4(0), TRANSFER);
    }

    // ----------------------------------------------------------------------------------------------
    // Hook
    // ----------------------------------------------------------------------------------------------

    /// @notice Refuses the execution outside the delegation's window, when any call targets the delegator
    ///         or the DelegationManager, or unless the Golem is registered and every call's action class
    ///         (plus SUBDELEGATION when redeemed through a sub-delegation) is allowed in its phase.
    /// @dev Terms: see the contract (20, 25, 36 or 41 bytes packed). The window is checked first (no
    ///      external call), then one oracle staticcall and one table SLOAD per call. Reverts
    ///      `InvalidTermsLength`, `InvalidWindow`, `DelegationNotYetActive(now, start)`,
    ///      `DelegationExpired(now, end)`, `GolemNotRegistered`, `ProtectedTarget(target, selector,
    ///      delegator, manager)`, `UnclassifiedAction`, `ActionNotAllowedInPhase`, and ExecutionLib's
    ///      call-type errors.
    function beforeHook(
        bytes calldata terms,
        bytes calldata,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32,
        address delegator,
        address redeemer
    ) public view override {
        (address golem, bytes5 masks) = _termsInsideWindow(terms);
        (bool registered, uint8 phase) = vitalityOracle.getPhase(golem);
        if (!registered) revert GolemNotRegistered(golem);
        uint8 mask = _maskFor(masks, phase);
        uint8 extra = redeemer == golem ? 0 : SUBDELEGATION;

        bytes1 callType = ExecutionLib.callType(mode);
        if (callType == ExecutionLib.CALLTYPE_SINGLE) {
            (address target,, bytes calldata callData) = ExecutionLib.decodeSingle(executionCallData);
            bytes4 selector = callData.length >= 4 ? bytes4(callData[:4]) : bytes4(0);
            _refuseProtectedTarget(delegator, target, selector);
            _check(golem, phase, mask, extra, target, selector, callData.length);
        } else if (callType == ExecutionLib.CALLTYPE_BATCH) {
            Execution[] memory executions = ExecutionLib.decodeBatch(executionCallData);
            for (uint256 i; i < executions.length; ++i) {
                bytes memory callData = executions[i].callData;
                bytes4 selector = ExecutionLib.selectorOf(callData);
                _refuseProtectedTarget(delegator, executions[i].target, selector);
                _check(golem, phase, mask, extra, executions[i].target, selector, callData.length);
            }
        } else {
            revert ExecutionLib.UnsupportedCallType(callType);
        }
    }

    // ----------------------------------------------------------------------------------------------
    // Admin
    // ----------------------------------------------------------------------------------------------

    /// @notice Sets the action classes a selector requires (0 unclassifies it, so it is refused).
    /// @dev `bytes4(0)` is empty calldata. Reverts `NotOwner`, `InvalidClassMask` (bits outside 0x1F).
    function setActionClass(
        bytes4 selector,
        uint8 classMask
    ) external onlyOwner {
        if (classMask & ~ALL_CLASSES != 0) revert InvalidClassMask(classMask);
        _setActionClass(selector, classMask);
    }

    // ----------------------------------------------------------------------------------------------
    // Views
    // ----------------------------------------------------------------------------------------------

    /// @notice The classes a selector requires; 0 means unclassified (refused). `bytes4(0)` is empty calldata.
    function actionClassOf(
        bytes4 selector
    ) external view returns (uint8) {
        return _actionClass[selector];
    }

    /// @notice Decodes terms into the Golem, the effective per-phase masks (the defaults without masks) and
    ///         the window (`0, NO_END` without one).
    /// @dev Reverts `InvalidTermsLength` unless terms are 20, 25, 36 or 41 bytes, `InvalidWindow` when
    ///      `startTime > endTime`.
    function getTermsInfo(
        bytes calldata terms
    ) public pure returns (address golem, bytes5 phaseMasks, uint64 startTime, uint64 endTime) {
        uint256 length = terms.length;
        // The address is the first 20 bytes, the masks the next 5 when present, the window the last 16.
        // Read straight from calldata (no slice bounds checks: every runway redemption pays this), and a
        // value is used only once the length is known to hold it.
        assembly ("memory-safe") {
            golem := shr(96, calldataload(terms.offset))
        }
        if (length == 20) return (golem, DEFAULT_PHASE_MASKS, 0, NO_END);
        if (length == 36) {
            phaseMasks = DEFAULT_PHASE_MASKS;
        } else if (length == 25 || length == 41) {
            phaseMasks = bytes5(terms[20:25]);
            if (length == 25) return (golem, phaseMasks, 0, NO_END);
        } else {
            revert InvalidTermsLength(length);
        }
        assembly ("memory-safe") {
            let window := add(terms.offset, sub(length, 16))
            startTime := shr(192, calldataload(window))
            endTime := shr(192, calldataload(add(window, 8)))
        }
        if (startTime > endTime) revert InvalidWindow(startTime, endTime);
    }

    /// @notice What the delegation may do right now: registration, phase and the classes that phase allows
    ///         (mask 0 outside the window, for an unregistered or dead Golem, or a phase above 4).
    function allowedClasses(
        bytes calldata terms
    ) external view returns (bool registered, uint8 phase, uint8 mask) {
        (address golem, bytes5 masks, uint64 startTime, uint64 endTime) = getTermsInfo(terms);
        (registered, phase) = vitalityOracle.getPhase(golem);
        // forge-lint: disable-next-line(block-timestamp)
        bool inWindow = block.timestamp >= startTime && block.timestamp <= endTime;
        mask = registered && inWindow ? _maskFor(masks, phase) : 0;
    }

    /// @notice Seconds until the window closes (`endTime - now`), 0 once expired, as
    ///         MortalityTimeWindowEnforcer's: before `startTime` it still counts to `endTime`, and at
    ///         `now == endTime` it is 0 though that second is still valid. Without a window it counts to
    ///         `NO_END`.
    function timeRemaining(
        bytes calldata terms
    ) external view returns (uint256) {
        (,,, uint64 endTime) = getTermsInfo(terms);
        // forge-lint: disable-next-line(block-timestamp)
        return block.timestamp >= endTime ? 0 : endTime - block.timestamp;
    }

    // ----------------------------------------------------------------------------------------------
    // Internal
    // ----------------------------------------------------------------------------------------------

    /// @dev Decodes the terms and refuses a redemption outside the window; returns what the phase check needs.
    function _termsInsideWindow(
        bytes calldata terms
    ) private view returns (address golem, bytes5 masks) {
        uint64 startTime;
        uint64 endTime;
        (golem, masks, startTime, endTime) = getTermsInfo(terms);
        // A lifespan window is a timestamp rule by design; seconds of validator drift do not matter here.
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp < startTime) revert DelegationNotYetActive(block.timestamp, startTime);
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > endTime) revert DelegationExpired(block.timestamp, endTime);
    }

    function _check(
        address golem,
        uint8 phase,
        uint8 mask,
        uint8 extra,
        address target,
        bytes4 selector,
        uint256 callDataLength
    ) private view {
        // Non-empty calldata whose selector reads as 0 is a real call, not a plain transfer: refuse it
        // rather than let it borrow the empty-calldata class.
        if (callDataLength != 0 && selector == bytes4(0)) revert UnclassifiedAction(target, selector);
        uint8 required = _actionClass[selector];
        if (required == 0) revert UnclassifiedAction(target, selector);
        required |= extra;
        if (required & mask != required) revert ActionNotAllowedInPhase(golem, phase, selector, required);
    }

    /// @dev The delegator's account and the manager are where delegations are enabled and disabled: a call
    ///      there could re-enable a revoked delegation, so no class in any table admits it.
    function _refuseProtectedTarget(
        address delegator,
        address target,
        bytes4 selector
    ) private view {
        if (target == delegator || target == msg.sender) {
            revert ProtectedTarget(target, selector, delegator, msg.sender);
        }
    }

    /// @dev A phase outside 0..4 (only a faulty oracle could report one) allows nothing.
    function _maskFor(
        bytes5 masks,
        uint8 phase
    ) private pure returns (uint8) {
        if (phase > 4) return 0;
        return uint8(masks[phase]);
    }

    function _setActionClass(
        bytes4 selector,
        uint8 classMask
    ) private {
        _actionClass[selector] = classMask;
        emit ActionClassSet(selector, classMask);
    }
}
