// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { PhaseHandler } from "./PhaseHandler.sol";
import { VitalityOracle } from "../../src/oracles/VitalityOracle.sol";
import { DreamOracle } from "../../src/oracles/DreamOracle.sol";

/// Invariants of the Golem lifecycle caveats under random register / heartbeat (including attempts to
/// go back) / reset / rotate / kill / dream / warp sequences with redemption attempts in between:
/// a phase never goes back except through the owner's resetPhase, a dead key never lives again, and
/// nothing executes while dreaming, outside the window (whether MortalityTimeWindow or GolemPhase's
/// own terms carry it), when unregistered, or in Terminal except settlement; and no call to the
/// delegator's own account or to the DelegationManager ever passes GolemPhase, whatever the phase; runway
/// terms pass exactly what the 36-byte terms pass of one plain transfer.
contract PhaseInvariantsTest is Test {
    PhaseHandler internal handler;
    VitalityOracle internal oracle;
    address internal constant OWNER = address(0x0A);
    uint256 internal constant T0 = 1_700_000_000;

    function setUp() public {
        vm.warp(T0);
        oracle = new VitalityOracle(OWNER);
        DreamOracle dreams = new DreamOracle();
        handler = new PhaseHandler(oracle, dreams, OWNER, T0, T0 + 7 days);
        // Start with some live Golems so early redemptions have something to act on.
        for (uint256 i; i < 5; ++i) {
            vm.prank(OWNER);
            handler.register(i);
        }
        targetContract(address(handler));
    }

    function invariant_phaseNeverGoesBackExceptByReset() public view {
        assertEq(handler.phaseWentBack(), 0, "phase decreased through updatePhase");
        // And the oracle still matches the model, whose phase only moves back in reset().
        for (uint256 i; i < handler.keyCount(); ++i) {
            address key = handler.keyAt(i);
            (bool registered, uint8 phase) = oracle.getPhase(key);
            assertEq(registered, handler.ghostRegistered(key), "registration");
            if (registered) assertEq(uint256(phase), handler.ghostPhase(key), "phase");
        }
        assertEq(handler.modelMismatches(), 0, "oracle disagrees with the model");
    }

    function invariant_deadKeysStayDead() public view {
        assertEq(handler.deadResurrected(), 0, "dead key registered again");
    }

    function invariant_nothingExecutesWhileDreaming() public view {
        assertEq(handler.passedWhileDreaming(), 0, "passed while dreaming");
    }

    function invariant_nothingExecutesOutsideTheWindow() public view {
        assertEq(handler.passedOutsideWindow(), 0, "passed outside the mortality window");
    }

    function invariant_foldedWindowActsAsTheSeparateCaveats() public view {
        assertEq(handler.foldedDisagreements(), 0, "golemPhase window differs from golemPhase + mortalityTimeWindow");
    }

    function invariant_runwayTermsNarrowTheTable() public view {
        assertEq(handler.runwayDisagreements(), 0, "runway terms differ from 36-byte terms plus one plain transfer");
    }

    function invariant_nothingExecutesWhenUnregistered() public view {
        assertEq(handler.passedUnregistered(), 0, "passed for an unregistered or dead golem");
    }

    function invariant_terminalOnlySettles() public view {
        assertEq(handler.passedTerminalNonSettlement(), 0, "non-settlement passed in Terminal");
        assertEq(handler.passedOutsidePhaseRules(), 0, "passed outside the phase rules");
    }

    function invariant_nothingReachesTheDelegatorOrTheManager() public view {
        assertEq(handler.passedAtProtectedTarget(), 0, "a call to the delegator or the manager passed");
    }

    function invariant_enforcersAllowWhatTheRulesAllow() public view {
        assertEq(handler.refusedWithinRules(), 0, "refused an allowed action");
    }

    /// A fixed pseudo-random walk through the handler, so the handler itself is tested: it must reach
    /// Terminal Golems, backwards heartbeats, resets, dreams and expiry, see redemptions both pass and
    /// fail, and find nothing wrong.
    function test_handlerWalkCoversTheLifecycle() public {
        for (uint256 i; i < 400; ++i) {
            uint256 r = uint256(keccak256(abi.encode("walk", i)));
            uint256 op = r % 10;
            if (op == 0) {
                handler.register(r >> 8);
            } else if (op == 1 || op == 2) {
                handler.heartbeat(r >> 8, uint8(r >> 16), uint16(r >> 24));
            } else if (op == 3) {
                handler.reset(r >> 8, uint8(r >> 16));
            } else if (op == 4) {
                handler.rotate(r >> 8, r >> 16, uint8(r >> 24));
            } else if (op == 5) {
                handler.kill(r >> 8, uint8(r >> 16));
            } else if (op == 6) {
                handler.dream(r >> 8);
            } else if (op == 7) {
                handler.warp(uint32(r >> 8) % 6 hours);
            } else if (op == 8) {
                handler.redeem(r >> 8, (r >> 16) % 3 == 0, (r >> 24) % 2 == 0);
            } else if (op == 9 && (r >> 8) % 3 == 0) {
                handler.redeemProtected(r >> 16, r >> 24, (r >> 32) % 2 == 0, (r >> 40) % 3 == 0, (r >> 48) % 2 == 0);
            } else {
                handler.redeemWindowed(
                    r >> 8, r >> 16, int32(uint32(r >> 24)), int32(uint32(r >> 56)), (r >> 88) % 3 == 0, (r >> 96) % 2 == 0
                );
            }
        }
        assertGt(handler.redemptionsPassed(), 0, "some redemptions pass");
        assertGt(handler.redemptionsRefused(), 0, "some redemptions are refused");
        assertGt(handler.terminalAttempts(), 0, "Terminal Golems are exercised");
        assertGt(handler.backwardsAttempts(), 0, "backwards heartbeats are exercised");
        assertGt(handler.resets(), 0, "resets are exercised");
        assertGt(handler.windowedPassed(), 0, "random windows let some redemptions through");
        assertGt(handler.windowedRefusedByWindow(), 0, "random windows refuse some redemptions");
        assertGt(handler.protectedAttemptsPhaseAllowed(), 0, "protected targets tried where the phase allows the action");
        assertGt(handler.runwayPassed(), 0, "runway terms let some transfers through");
        _assertClean();
    }

    function _assertClean() internal view {
        assertEq(handler.phaseWentBack() + handler.modelMismatches() + handler.deadResurrected(), 0, "lifecycle");
        assertEq(handler.passedWhileDreaming() + handler.passedOutsideWindow() + handler.passedUnregistered(), 0, "gates");
        assertEq(handler.passedTerminalNonSettlement() + handler.passedOutsidePhaseRules(), 0, "phase rules");
        assertEq(handler.refusedWithinRules(), 0, "over-refusal");
        assertEq(handler.foldedDisagreements(), 0, "folded window");
        assertEq(handler.passedAtProtectedTarget(), 0, "protected target");
        assertEq(handler.runwayDisagreements(), 0, "runway terms");
    }

    event log_named_uint(string key, uint256 val);

    function afterInvariant() public {
        emit log_named_uint("passed", handler.redemptionsPassed());
        emit log_named_uint("refused", handler.redemptionsRefused());
        emit log_named_uint("backwardsAttempts", handler.backwardsAttempts());
        emit log_named_uint("resets", handler.resets());
        emit log_named_uint("registeredAttempts", handler.registeredAttempts());
        emit log_named_uint("terminalAttempts", handler.terminalAttempts());
        emit log_named_uint("windowedPassed", handler.windowedPassed());
        emit log_named_uint("windowedRefusedByWindow", handler.windowedRefusedByWindow());
        emit log_named_uint("protectedAttempts", handler.protectedAttempts());
    }
}
