// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Vm } from "../lib/Test.sol";
import { VitalityOracle } from "../../src/oracles/VitalityOracle.sol";
import { DreamOracle } from "../../src/oracles/DreamOracle.sol";
import { GolemPhaseEnforcer } from "../../src/enforcers/GolemPhaseEnforcer.sol";
import { MortalityTimeWindowEnforcer } from "../../src/enforcers/MortalityTimeWindowEnforcer.sol";
import { DreamModeEnforcer } from "../../src/enforcers/DreamModeEnforcer.sol";
import { ICaveatEnforcer } from "../../src/interfaces/ICaveatEnforcer.sol";
import { Execution } from "../../src/libraries/ExecutionLib.sol";

/// Drives the Golem lifecycle at random (register, heartbeat including attempts to go back, owner
/// resets, key rotation, death, dreams, time) and tries redemptions through the three lifecycle
/// caveats the way the DelegationManager would, and through GolemPhase with the life window folded
/// into its terms (the runway as built): over the handler's fixed window and over random windows
/// around the current time. It keeps its own model of every key (ghost state) and
/// counts every moment the contracts disagree with the rules; the invariant suite asserts the counts
/// stay zero.
contract PhaseHandler {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    address internal constant MANAGER = address(0xDE1E);
    address internal constant REPLICANT = address(0x4E91);
    address internal constant TARGET = address(0x7A46E7);
    address internal constant DELEGATOR = address(0xA11CE);
    uint8 internal constant SETTLEMENT = 0x10;
    uint256 internal constant KEYS = 6;

    VitalityOracle public immutable oracle;
    DreamOracle public immutable dreams;
    GolemPhaseEnforcer public immutable phaseEnforcer;
    MortalityTimeWindowEnforcer public immutable windowEnforcer;
    DreamModeEnforcer public immutable dreamEnforcer;
    address public immutable owner;
    uint256 public immutable windowStart;
    uint256 public immutable windowEnd;

    // Ghost model, per key.
    address[KEYS] public keys;
    mapping(address => bool) public ghostRegistered;
    mapping(address => bool) public ghostDead;
    mapping(address => uint8) public ghostPhase;
    mapping(address => bool) public ghostDreaming;

    // Violations: each must stay zero.
    uint256 public phaseWentBack; // a phase decreased other than through resetPhase
    uint256 public modelMismatches; // oracle state differs from the model after an action
    uint256 public deadResurrected; // a dead key became registered again
    uint256 public passedWhileDreaming;
    uint256 public passedOutsideWindow;
    uint256 public passedUnregistered;
    uint256 public passedTerminalNonSettlement;
    uint256 public passedOutsidePhaseRules; // any class outside the default mask
    uint256 public refusedWithinRules; // the enforcer refused what the rules allow
    uint256 public foldedDisagreements; // golemPhase with a window differs from golemPhase + mortalityTimeWindow
    uint256 public passedAtProtectedTarget; // a call to the delegator or the manager passed GolemPhase
    uint256 public runwayDisagreements; // runway terms passed other than "36-byte terms pass and it is one transfer"

    // Coverage counters.
    uint256 public redemptionsPassed;
    uint256 public redemptionsRefused;
    uint256 public backwardsAttempts;
    uint256 public resets;
    uint256 public terminalAttempts;
    uint256 public registeredAttempts;
    uint256 public windowedPassed; // random-window redemptions that passed (inside their window)
    uint256 public windowedRefusedByWindow; // random-window redemptions outside their window
    uint256 public protectedAttempts; // redemptions with a call to the delegator or the manager
    uint256 public protectedAttemptsPhaseAllowed; // of those, ones the phase rules alone would have let pass
    uint256 public runwayPassed; // runway-terms redemptions that passed

    struct Action {
        bytes4 selector;
        uint8 class; // 0 = unclassified
    }

    constructor(
        VitalityOracle oracle_,
        DreamOracle dreams_,
        address owner_,
        uint256 windowStart_,
        uint256 windowEnd_
    ) {
        oracle = oracle_;
        dreams = dreams_;
        owner = owner_;
        windowStart = windowStart_;
        windowEnd = windowEnd_;
        phaseEnforcer = new GolemPhaseEnforcer(address(oracle_), owner_);
        windowEnforcer = new MortalityTimeWindowEnforcer();
        dreamEnforcer = new DreamModeEnforcer(address(dreams_));
        for (uint256 i; i < KEYS; ++i) {
            keys[i] = address(uint160(0x60000 + i));
        }
    }

    // ------------------------------------------------------------------ lifecycle actions

    function register(
        uint256 k
    ) external {
        address key = _key(k);
        vm.prank(owner);
        try oracle.registerGolem(key) {
            if (ghostDead[key]) deadResurrected++;
            if (ghostRegistered[key]) modelMismatches++;
            ghostRegistered[key] = true;
            ghostPhase[key] = 0;
        } catch {
            if (!ghostRegistered[key] && !ghostDead[key]) modelMismatches++;
        }
        _sync(key);
    }

    function heartbeat(
        uint256 k,
        uint8 phase,
        uint16 score
    ) external {
        address key = _key(k);
        // Hashed so the fuzzer's edge-biased inputs still spread over every phase; 5 is invalid on purpose.
        phase = uint8(uint256(keccak256(abi.encode(phase, k))) % 6);
        score = uint16(score % 10_002); // 10001 is invalid on purpose
        (, uint8 before_) = oracle.getPhase(key);
        if (phase < before_) backwardsAttempts++;
        vm.prank(key);
        try oracle.updatePhase(phase, score) {
            (, uint8 after_) = oracle.getPhase(key);
            if (after_ < before_) phaseWentBack++;
            bool allowed = ghostRegistered[key] && phase <= 4 && score <= 10_000 && phase >= ghostPhase[key];
            if (!allowed) modelMismatches++;
            ghostPhase[key] = phase;
        } catch {
            bool allowed = ghostRegistered[key] && phase <= 4 && score <= 10_000 && phase >= ghostPhase[key];
            if (allowed) modelMismatches++;
        }
        _sync(key);
    }

    function reset(
        uint256 k,
        uint8 phase
    ) external {
        address key = _key(k);
        phase = uint8(uint256(keccak256(abi.encode(phase, k))) % 5);
        vm.prank(owner);
        try oracle.resetPhase(key, phase, "invariant reset") {
            if (!ghostRegistered[key]) modelMismatches++;
            ghostPhase[key] = phase;
            resets++;
        } catch {
            if (ghostRegistered[key]) modelMismatches++;
        }
        _sync(key);
    }

    function strangerReset(
        uint256 k,
        uint8 phase,
        address stranger
    ) external {
        if (stranger == owner) return;
        vm.prank(stranger);
        try oracle.resetPhase(_key(k), uint8(phase % 5), "not mine") {
            modelMismatches++;
        } catch { }
        _sync(_key(k));
    }

    function rotate(
        uint256 k1,
        uint256 k2,
        uint8 chance
    ) external {
        // Rotation kills the old key, so it is rarer too.
        if (chance % 2 != 0) return;
        address from = _key(k1);
        address to = _key(k2);
        vm.prank(owner);
        try oracle.rotateGolemKey(from, to) {
            if (ghostDead[to]) deadResurrected++;
            if (!ghostRegistered[from] || ghostRegistered[to]) modelMismatches++;
            ghostRegistered[to] = true;
            ghostPhase[to] = ghostPhase[from];
            ghostRegistered[from] = false;
            ghostDead[from] = true;
        } catch {
            if (ghostRegistered[from] && !ghostRegistered[to] && !ghostDead[to] && from != to) modelMismatches++;
        }
        _sync(from);
        _sync(to);
    }

    function kill(
        uint256 k,
        uint8 chance
    ) external {
        // Death is final for a key, so it is made rarer than the other actions to keep runs alive.
        if (chance % 4 != 0) return;
        address key = _key(k);
        vm.prank(owner);
        try oracle.deregisterGolem(key) {
            if (!ghostRegistered[key]) modelMismatches++;
            ghostRegistered[key] = false;
            ghostDead[key] = true;
        } catch {
            if (ghostRegistered[key]) modelMismatches++;
        }
        _sync(key);
    }

    function dream(
        uint256 k
    ) external {
        address key = _key(k);
        vm.prank(key);
        if (ghostDreaming[key]) {
            try dreams.endDream() {
                ghostDreaming[key] = false;
            } catch {
                modelMismatches++;
            }
        } else {
            try dreams.startDream() {
                ghostDreaming[key] = true;
            } catch {
                modelMismatches++;
            }
        }
    }

    function warp(
        uint32 secondsForward
    ) external {
        vm.warp(block.timestamp + (secondsForward % 3 days));
    }

    // ------------------------------------------------------------------ redemption attempts

    /// Two redemptions (random actions) for every key through the three lifecycle caveats; each
    /// "executes" only if all three pass.
    function redeem(
        uint256 actionSeed,
        bool viaReplicant,
        bool asBatch
    ) external {
        for (uint256 i; i < KEYS; ++i) {
            for (uint256 j; j < 2; ++j) {
                _redeem(keys[i], _action(uint256(keccak256(abi.encode(actionSeed, i, j)))), viaReplicant, asBatch);
            }
        }
    }

    function _redeem(
        address golem,
        Action memory a,
        bool viaReplicant,
        bool asBatch
    ) internal {
        address redeemer = viaReplicant ? REPLICANT : golem;
        (bytes32 mode, bytes memory execution) = _execution(a.selector, asBatch);

        bool phaseOk = _passes(ICaveatEnforcer(address(phaseEnforcer)), abi.encodePacked(golem), mode, execution, redeemer);
        bool windowOk = _passes(windowEnforcer, abi.encode(windowStart, windowEnd), mode, execution, redeemer);
        bool dreamOk = _passes(dreamEnforcer, abi.encodePacked(golem), mode, execution, redeemer);
        bool foldedOk =
            _passes(ICaveatEnforcer(address(phaseEnforcer)), _folded(golem, windowStart, windowEnd), mode, execution, redeemer);

        if (ghostRegistered[golem]) registeredAttempts++;
        if (ghostRegistered[golem] && ghostPhase[golem] == 4) terminalAttempts++;
        // Per-caveat rules.
        bool phaseAllowed = _phaseAllows(golem, a, viaReplicant);
        if (phaseOk) {
            if (!ghostRegistered[golem]) passedUnregistered++;
            if (ghostRegistered[golem] && ghostPhase[golem] == 4 && a.class != SETTLEMENT) passedTerminalNonSettlement++;
            if (!phaseAllowed) passedOutsidePhaseRules++;
        } else if (phaseAllowed) {
            refusedWithinRules++;
        }
        bool inWindow = block.timestamp >= windowStart && block.timestamp <= windowEnd;
        if (windowOk != inWindow) {
            if (windowOk) passedOutsideWindow++;
            else refusedWithinRules++;
        }
        if (foldedOk && !inWindow) passedOutsideWindow++;
        if (foldedOk != (phaseOk && windowOk)) foldedDisagreements++;
        _redeemRunwayInFixedWindow(golem, a, viaReplicant, asBatch, foldedOk && !asBatch);
        if (dreamOk == ghostDreaming[golem]) {
            if (dreamOk) passedWhileDreaming++;
            else refusedWithinRules++;
        }

        if (phaseOk && windowOk && dreamOk) redemptionsPassed++;
        else redemptionsRefused++;
    }

    /// One redemption through GolemPhase with a random window whose bounds land near now: often exactly
    /// one second before, at or after it (the inclusive edges), otherwise up to three days away; an
    /// inverted window is included (it must refuse everything).
    function redeemWindowed(
        uint256 k,
        uint256 actionSeed,
        int32 startOffset,
        int32 endOffset,
        bool viaReplicant,
        bool asBatch
    ) external {
        address golem = _key(k);
        Action memory a = _action(actionSeed);
        address redeemer = viaReplicant ? REPLICANT : golem;
        (bytes32 mode, bytes memory execution) = _execution(a.selector, asBatch);
        uint256 start = _near(startOffset);
        uint256 end = _near(endOffset);

        bool ok = _passes(ICaveatEnforcer(address(phaseEnforcer)), _folded(golem, start, end), mode, execution, redeemer);
        _redeemRunway(golem, a, _runway(golem, start, end), mode, execution, redeemer, ok && !asBatch);
        bool inWindow = start <= block.timestamp && block.timestamp <= end;
        bool phaseAllowed = _phaseAllows(golem, a, viaReplicant);
        if (ok && !inWindow) passedOutsideWindow++;
        if (ok && !phaseAllowed) passedOutsidePhaseRules++;
        if (!ok && inWindow && phaseAllowed) refusedWithinRules++;
        // Against the two separate caveats, where MortalityTimeWindow can express the window (end > start).
        if (end > start) {
            bool phaseOk = _passes(ICaveatEnforcer(address(phaseEnforcer)), abi.encodePacked(golem), mode, execution, redeemer);
            bool windowOk = _passes(windowEnforcer, abi.encode(start, end), mode, execution, redeemer);
            if (ok != (phaseOk && windowOk)) foldedDisagreements++;
        }
        if (ok) windowedPassed++;
        if (!inWindow) windowedRefusedByWindow++;
    }

    /// One redemption whose calls (one, or the second of a batch) go to the delegator's own account or to
    /// the DelegationManager, with any action (enableDelegation included), in any phase, windowed or not.
    /// GolemPhase must refuse every one, even where the phase rules alone would allow the action.
    function redeemProtected(
        uint256 k,
        uint256 actionSeed,
        bool toManager,
        bool viaReplicant,
        bool asBatch
    ) external {
        address golem = _key(k);
        Action memory a = _action(actionSeed);
        address redeemer = viaReplicant ? REPLICANT : golem;
        address target = toManager ? MANAGER : DELEGATOR;
        bytes memory callData = a.selector == bytes4(0) ? bytes("") : abi.encodePacked(a.selector, uint256(1));
        bytes32 mode;
        bytes memory execution;
        if (asBatch) {
            Execution[] memory ex = new Execution[](2);
            ex[0] = Execution(TARGET, 0, "");
            ex[1] = Execution(target, 0, callData);
            (mode, execution) = (bytes32(bytes1(0x01)), abi.encode(ex));
        } else {
            (mode, execution) = (bytes32(0), abi.encodePacked(target, uint256(0), callData));
        }
        protectedAttempts++;
        if (_phaseAllows(golem, a, viaReplicant)) protectedAttemptsPhaseAllowed++;
        if (_passes(ICaveatEnforcer(address(phaseEnforcer)), abi.encodePacked(golem), mode, execution, redeemer)) {
            passedAtProtectedTarget++;
        }
        if (_passes(ICaveatEnforcer(address(phaseEnforcer)), _folded(golem, windowStart, windowEnd), mode, execution, redeemer)) {
            passedAtProtectedTarget++;
        }
        if (_passes(ICaveatEnforcer(address(phaseEnforcer)), _runway(golem, windowStart, windowEnd), mode, execution, redeemer)) {
            passedAtProtectedTarget++;
        }
    }

    // ------------------------------------------------------------------ helpers

    function keyAt(
        uint256 i
    ) external view returns (address) {
        return keys[i];
    }

    function keyCount() external pure returns (uint256) {
        return KEYS;
    }

    /// Hashed so edge-biased fuzz inputs (0, max) still reach every key.
    function _key(
        uint256 k
    ) internal view returns (address) {
        return keys[uint256(keccak256(abi.encode(k))) % KEYS];
    }

    /// After every lifecycle action the oracle must agree with the model.
    function _sync(
        address key
    ) internal {
        (bool registered, uint8 phase) = oracle.getPhase(key);
        if (registered != ghostRegistered[key]) modelMismatches++;
        if (registered && phase != ghostPhase[key]) modelMismatches++;
        if (ghostDead[key] && (registered || !oracle.getState(key).dead)) deadResurrected++;
    }

    /// Runway terms (32 bytes) over the same Golem and window must pass exactly when the 36-byte terms pass a
    /// single plain transfer (an ERC-20 transfer or empty calldata), and never outside the window.
    function _redeemRunway(
        address golem,
        Action memory a,
        bytes memory terms,
        bytes32 mode,
        bytes memory execution,
        address redeemer,
        bool foldedSinglePassed
    ) internal {
        bool ok = _passes(ICaveatEnforcer(address(phaseEnforcer)), terms, mode, execution, redeemer);
        bool isTransfer = a.selector == bytes4(0xa9059cbb) || a.selector == bytes4(0);
        if (ok != (foldedSinglePassed && isTransfer)) runwayDisagreements++;
        if (ok && !_inWindow(terms)) passedOutsideWindow++;
        if (ok && !ghostRegistered[golem]) passedUnregistered++;
        if (ok) runwayPassed++;
    }

    function _redeemRunwayInFixedWindow(
        address golem,
        Action memory a,
        bool viaReplicant,
        bool asBatch,
        bool foldedSinglePassed
    ) internal {
        (bytes32 mode, bytes memory execution) = _execution(a.selector, asBatch);
        _redeemRunway(
            golem,
            a,
            _runway(golem, windowStart, windowEnd),
            mode,
            execution,
            viaReplicant ? REPLICANT : golem,
            foldedSinglePassed
        );
    }

    function _inWindow(
        bytes memory terms
    ) internal view returns (bool) {
        try phaseEnforcer.getTermsInfo(terms) returns (address, bytes5, uint64 start, uint64 end) {
            return start <= block.timestamp && block.timestamp <= end;
        } catch {
            return false;
        }
    }

    /// The 32-byte runway terms: the Golem and its life window as two uint48s.
    function _runway(
        address golem,
        uint256 start,
        uint256 end
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(golem, uint48(start), uint48(end));
    }

    /// The 36-byte GolemPhase terms: the Golem and its life window, default masks.
    function _folded(
        address golem,
        uint256 start,
        uint256 end
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(golem, uint64(start), uint64(end));
    }

    function _near(
        int32 offset
    ) internal view returns (uint256) {
        int256 span = offset & 1 == 0 ? int256(2) : int256(3 days);
        return uint256(int256(block.timestamp) + int256(offset) % span);
    }

    function _phaseAllows(
        address golem,
        Action memory a,
        bool viaReplicant
    ) internal view returns (bool) {
        uint8 required = a.class | (viaReplicant ? 0x08 : 0);
        return ghostRegistered[golem] && a.class != 0 && required & _mask(ghostPhase[golem]) == required;
    }

    function _mask(
        uint8 phase
    ) internal pure returns (uint8) {
        return [uint8(0x1F), 0x17, 0x16, 0x16, 0x10][phase];
    }

    function _action(
        uint256 seed
    ) internal pure returns (Action memory) {
        uint256 i = seed % 9;
        if (i == 0) return Action(0xa9059cbb, 0x04); // transfer
        if (i == 1) return Action(0x095ea7b3, 0x01); // approve
        if (i == 2) return Action(0x04e45aaf, 0x01); // exactInputSingle
        if (i == 3) return Action(0xb460af94, 0x02); // ERC-4626 withdraw
        if (i == 4) return Action(0xba087652, 0x10); // ERC-4626 redeem
        if (i == 5) return Action(0xfc6f7865, 0x10); // collect
        if (i == 6) return Action(0x3ed01015, 0x08); // enableDelegation
        if (i == 7) return Action(bytes4(0), 0x04); // plain native transfer
        return Action(0xdeadbeef, 0); // unclassified
    }

    function _execution(
        bytes4 selector,
        bool asBatch
    ) internal pure returns (bytes32 mode, bytes memory execution) {
        bytes memory callData = selector == bytes4(0) ? bytes("") : abi.encodePacked(selector, uint256(1));
        if (!asBatch) return (bytes32(0), abi.encodePacked(TARGET, uint256(0), callData));
        Execution[] memory ex = new Execution[](2);
        ex[0] = Execution(TARGET, 0, callData);
        ex[1] = Execution(TARGET, 0, callData);
        return (bytes32(bytes1(0x01)), abi.encode(ex));
    }

    function _passes(
        ICaveatEnforcer enforcer,
        bytes memory terms,
        bytes32 mode,
        bytes memory execution,
        address redeemer
    ) internal returns (bool ok) {
        vm.prank(MANAGER);
        try enforcer.beforeHook(terms, "", mode, execution, keccak256("d"), DELEGATOR, redeemer) {
            ok = true;
        } catch {
            ok = false;
        }
    }
}
