// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { ICaveatEnforcer } from "../interfaces/ICaveatEnforcer.sol";
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
///      - 41 bytes `(address golem, bytes5 phaseMasks, uint64 startTime, uint64 endTime)`;
///      - 32 bytes, runway terms, `(address golem, uint48 startTime, uint48 endTime)`: for a delegation that
///        only moves funds. Each redemption must be one call (single call type) that is a plain transfer, an
///        ERC-20 `transfer(address,uint256)` or empty calldata, classed TRANSFER in code rather than by the
///        table (so the table's owner cannot widen or stop it), with masks RUNWAY_PHASE_MASKS; no table read.
///      Byte i of `phaseMasks` is the set of action classes phase i allows for this delegation
///      (overriding the defaults). Without a window the delegation is unbounded in time (start 0, end
///      `type(uint64).max`); `startTime > endTime` is refused, `startTime == endTime` is one valid second.
///      Every execution (batch included) needs all bits of its class, plus SUBDELEGATION when
///      `redeemer != golem`, in the mask of the current phase. The selector -> class table is seeded
///      with real selectors and kept up to date by the owner (the phase-table admin, a different key from
///      the VitalityOracle's owner) without redeploying; the role moves in two steps (Ownable2Step).
///      Stateless, so try-mode is accepted.
contract GolemPhaseEnforcer is Ownable2Step {
    // The action classes (docs/contracts.md). Not getters: every selector adds dispatch gas to the four
    // hook calls of every redemption.
    uint8 internal constant OPEN = 0x01;
    uint8 internal constant CLOSE = 0x02;
    uint8 internal constant TRANSFER = 0x04;
    uint8 internal constant SUBDELEGATION = 0x08;
    uint8 internal constant SETTLEMENT = 0x10;
    uint8 internal constant ALL_CLASSES = 0x1F;

    /// @notice Default masks, byte i for phase i: Thriving 0x1F, Stable 0x17, Conservation 0x16,
    ///         Declining 0x16, Terminal 0x10.
    bytes5 public constant DEFAULT_PHASE_MASKS = 0x1F17161610;

    /// @dev The end `getTermsInfo` reports for terms without a window: never.
    uint64 internal constant NO_END = type(uint64).max;

    /// @dev What runway terms allow (`getTermsInfo` reports it), byte i for phase i: the defaults cut down to TRANSFER (and the
    ///         SUBDELEGATION bit a re-delegated redemption needs), so Thriving 0x0C, Stable to Declining
    ///         0x04, Terminal nothing.
    bytes5 internal constant RUNWAY_PHASE_MASKS = 0x0C04040400;

    /// @dev Runway terms are one word: the Golem and a window of two uint48 timestamps.
    uint256 internal constant RUNWAY_TERMS_LENGTH = 32;
    bytes4 internal constant ERC20_TRANSFER = 0xa9059cbb; // transfer(address,uint256)

    IVitalityOracle public immutable vitalityOracle;

    /// @dev The key bytes4(0) stands for empty calldata (a plain native transfer).
    mapping(bytes4 selector => uint8 classMask) private _actionClass;

    event ActionClassSet(bytes4 indexed selector, uint8 classMask);

    error ZeroAddress();
    error InvalidClassMask(uint8 classMask);
    error InvalidTermsLength(uint256 length);
    error GolemNotRegistered(address golem);
    error UnclassifiedAction(address target, bytes4 selector);
    error NotARunwayTransfer(address target, bytes4 selector);
    error UnknownFunction(bytes4 selector);
    error MalformedHookCall();
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

    /// @notice The four caveat hooks. beforeHook refuses the execution outside the delegation's window, when any
    ///         call targets the delegator or the DelegationManager, or unless the Golem is registered and every
    ///         call's action class (plus SUBDELEGATION when redeemed through a sub-delegation) is allowed in its
    ///         phase; with runway terms, unless the execution is one plain transfer. beforeAllHook, afterHook and
    ///         afterAllHook do nothing. Any other call is refused.
    /// @dev The hooks are answered here rather than as declared functions because the DelegationManager calls
    ///      all four on every caveat, and the compiler's decoder for their seven arguments costs ~1k gas a
    ///      call: the three empty hooks return undecoded, and beforeHook reads only the arguments it uses, with
    ///      the bounds the decoder would check. Reverts `UnknownFunction`, `MalformedHookCall`,
    ///      `InvalidTermsLength`, `InvalidWindow`, `DelegationNotYetActive(now, start)`,
    ///      `DelegationExpired(now, end)`, `GolemNotRegistered`, `ProtectedTarget(target, selector, delegator,
    ///      manager)`, `UnclassifiedAction`, `NotARunwayTransfer`, `ActionNotAllowedInPhase`, and
    ///      ExecutionLib's call-type errors. Payable only so that the compiler checks no value on the four
    ///      hook calls every redemption makes (the DelegationManager never sends any, and the enforcer holds
    ///      nothing of the owner's); `receive` and every declared function still refuse value.
    fallback() external payable {
        bytes4 selector = msg.sig;
        if (selector != ICaveatEnforcer.beforeHook.selector) {
            if (
                selector == ICaveatEnforcer.beforeAllHook.selector || selector == ICaveatEnforcer.afterHook.selector
                    || selector == ICaveatEnforcer.afterAllHook.selector
            ) return;
            revert UnknownFunction(selector);
        }
        // beforeHook's arguments where the ABI puts them: (bytes terms, bytes args, bytes32 mode, bytes
        // executionCallData, bytes32 delegationHash, address delegator, address redeemer). As the compiler's
        // decoder would, a head shorter than seven words, a `bytes` that does not lie inside the calldata, or an
        // address with bits above its 20 bytes is refused; `args` and the hash are not read.
        bytes calldata terms;
        bytes calldata executionCallData;
        bytes32 mode;
        address delegator;
        address redeemer;
        bool malformed;
        assembly ("memory-safe") {
            // A `bytes` head word is an offset (from after the selector) to its length word.
            let termsAt := calldataload(0x04)
            let executionAt := calldataload(0x64)
            terms.length := calldataload(add(termsAt, 0x04))
            terms.offset := add(termsAt, 0x24)
            executionCallData.length := calldataload(add(executionAt, 0x04))
            executionCallData.offset := add(executionAt, 0x24)
            mode := calldataload(0x44)
            delegator := calldataload(0xa4)
            redeemer := calldataload(0xc4)
            malformed := or(
                or(lt(calldatasize(), 0xe4), shr(160, or(delegator, redeemer))),
                shr(32, or(or(termsAt, executionAt), or(terms.length, executionCallData.length)))
            )
            malformed := or(
                malformed,
                or(
                    gt(add(terms.offset, terms.length), calldatasize()),
                    gt(add(executionCallData.offset, executionCallData.length), calldatasize())
                )
            )
        }
        if (malformed) revert MalformedHookCall();
        if (terms.length == RUNWAY_TERMS_LENGTH) _checkRunway(terms, mode, executionCallData, delegator, redeemer);
        else _checkTable(terms, mode, executionCallData, delegator, redeemer);
    }

    /// @notice Refuses plain ETH: the enforcer holds nothing.
    receive() external payable {
        revert UnknownFunction(bytes4(0));
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
    /// @dev Reverts `InvalidTermsLength` unless terms are 20, 25, 32, 36 or 41 bytes, `InvalidWindow` when
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
        if (length == RUNWAY_TERMS_LENGTH) {
            assembly ("memory-safe") {
                let word := calldataload(terms.offset)
                startTime := and(shr(48, word), 0xffffffffffff)
                endTime := and(word, 0xffffffffffff)
            }
            if (startTime > endTime) revert InvalidWindow(startTime, endTime);
            return (golem, RUNWAY_PHASE_MASKS, startTime, endTime);
        }
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

    /// @dev The selector table's check, for terms of 20, 25, 36 or 41 bytes.
    function _checkTable(
        bytes calldata terms,
        bytes32 mode,
        bytes calldata executionCallData,
        address delegator,
        address redeemer
    ) private view {
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

    /// @dev Runway terms: one plain transfer (an ERC-20 `transfer` or empty calldata) in a phase whose
    ///      RUNWAY_PHASE_MASKS byte holds its classes. Every runway redemption pays for this, so it is written
    ///      close to the metal: the checks that need no call are computed together (the first that fails is
    ///      reported, in the order window, call type, execution length, transfer, protected target), then the
    ///      oracle is called by hand with the checks the compiler would add (two words back, its revert passed
    ///      on).
    function _checkRunway(
        bytes calldata terms,
        bytes32 mode,
        bytes calldata executionCallData,
        address delegator,
        address redeemer
    ) private view {
        address golem;
        uint256 startTime;
        uint256 endTime;
        address target;
        bytes4 selector;
        uint256 failure;
        assembly ("memory-safe") {
            let word := calldataload(terms.offset)
            golem := shr(96, word)
            startTime := and(shr(48, word), 0xffffffffffff)
            endTime := and(word, 0xffffffffffff)
            // Single call type: abi.encodePacked(target, value, callData), so the calldata starts at byte 52.
            let length := executionCallData.length
            target := shr(96, calldataload(executionCallData.offset))
            if gt(length, 55) { selector := shl(224, shr(224, calldataload(add(executionCallData.offset, 52)))) }
            // Later assignments win, so the checks run from the last to the first reported.
            if or(eq(target, delegator), eq(target, caller())) { failure := 6 }
            // 0xa9059cbb: transfer(address,uint256)
            if and(iszero(eq(length, 52)), iszero(eq(selector, shl(224, 0xa9059cbb)))) { failure := 5 }
            if lt(length, 52) { failure := 4 }
            if byte(0, mode) { failure := 3 }
            if gt(timestamp(), endTime) { failure := 2 }
            if lt(timestamp(), startTime) { failure := 1 }
        }
        if (failure != 0) {
            _refuseRunway(failure, startTime, endTime, mode, executionCallData.length, target, selector, delegator);
        }

        address oracle = address(vitalityOracle);
        uint256 registered;
        uint256 phase;
        uint256 required;
        bool allowed;
        assembly ("memory-safe") {
            mstore(0x00, shl(224, 0x904cfd60)) // getPhase(address)
            mstore(0x04, golem)
            let ok := staticcall(gas(), oracle, 0x00, 0x24, 0x00, 0x40)
            if iszero(and(ok, gt(returndatasize(), 0x3f))) {
                returndatacopy(0x00, 0x00, returndatasize())
                revert(0x00, returndatasize())
            }
            registered := mload(0x00)
            phase := mload(0x20)
            // TRANSFER, plus SUBDELEGATION when redeemed through a sub-delegation.
            required := 0x04
            if iszero(eq(redeemer, golem)) { required := 0x0c }
            // Byte `phase` of RUNWAY_PHASE_MASKS (0x0C04040400); a phase outside 0..4 (only a faulty oracle could
            // report one) allows nothing.
            let mask := 0
            if lt(phase, 5) { mask := and(shr(shl(3, sub(4, phase)), 0x0C04040400), 0xff) }
            allowed := eq(and(required, mask), required)
        }
        if (registered == 0) revert GolemNotRegistered(golem);
        if (!allowed) revert ActionNotAllowedInPhase(golem, uint8(phase), selector, uint8(required));
    }

    /// @dev The runway check's refusals before the oracle call, with their numbers.
    function _refuseRunway(
        uint256 failure,
        uint256 startTime,
        uint256 endTime,
        bytes32 mode,
        uint256 length,
        address target,
        bytes4 selector,
        address delegator
    ) private view {
        if (failure == 1) revert DelegationNotYetActive(block.timestamp, startTime);
        if (failure == 2) revert DelegationExpired(block.timestamp, endTime);
        if (failure == 3) revert ExecutionLib.UnsupportedCallType(ExecutionLib.callType(mode));
        if (failure == 4) revert ExecutionLib.MalformedExecution(length);
        if (failure == 5) revert NotARunwayTransfer(target, selector);
        revert ProtectedTarget(target, selector, delegator, msg.sender);
    }

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
