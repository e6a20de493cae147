// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test, Vm } from "./lib/Test.sol";
import { VitalityOracle } from "../src/oracles/VitalityOracle.sol";
import { Ownable2Step } from "../src/access/Ownable2Step.sol";
import { IVitalityOracle } from "../src/interfaces/IVitalityOracle.sol";

contract VitalityOracleTest is Test {
    VitalityOracle internal oracle;
    address internal constant OWNER = address(0x0A);
    address internal constant GOLEM = address(0x601E);
    address internal constant GOLEM2 = address(0x602E);
    address internal constant STRANGER = address(0xBAD);

    function setUp() public {
        vm.warp(1_700_000_000);
        oracle = new VitalityOracle(OWNER);
    }

    function _register(
        address golem
    ) internal {
        vm.prank(OWNER);
        oracle.registerGolem(golem);
    }

    function _update(
        address golem,
        uint8 phase,
        uint16 score
    ) internal {
        vm.prank(golem);
        oracle.updatePhase(phase, score);
    }

    function _phase(
        address golem
    ) internal view returns (bool registered, uint256 phase) {
        (bool r, uint8 p) = oracle.getPhase(golem);
        return (r, p);
    }

    // ---------------------------------------------------------------- constructor / ownership

    function test_constructor_setsOwnerAndEmits() public {
        vm.expectEmit(true, true, true, true);
        emit Ownable2Step.OwnershipTransferred(address(0), OWNER);
        VitalityOracle o = new VitalityOracle(OWNER);
        assertEq(o.owner(), OWNER);
    }

    function test_constructor_revertsOnZeroOwner() public {
        vm.expectRevert(IVitalityOracle.ZeroAddress.selector);
        new VitalityOracle(address(0));
    }

    function test_transferOwnership_movesEveryOwnerPowerOnAcceptance() public {
        address next = address(0x0B);
        vm.expectEmit(true, true, true, true);
        emit Ownable2Step.OwnershipTransferStarted(OWNER, next);
        vm.prank(OWNER);
        oracle.transferOwnership(next);
        assertEq(oracle.owner(), OWNER);
        assertEq(oracle.pendingOwner(), next);

        vm.expectEmit(true, true, true, true);
        emit Ownable2Step.OwnershipTransferred(OWNER, next);
        vm.prank(next);
        oracle.acceptOwnership();
        assertEq(oracle.owner(), next);
        assertEq(oracle.pendingOwner(), address(0));

        vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotOwner.selector, OWNER));
        vm.prank(OWNER);
        oracle.registerGolem(GOLEM);

        vm.prank(next);
        oracle.registerGolem(GOLEM);
        (bool registered,) = _phase(GOLEM);
        assertTrue(registered);
    }

    function test_transferOwnership_revertsForNonOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotOwner.selector, STRANGER));
        vm.prank(STRANGER);
        oracle.transferOwnership(STRANGER);
    }

    /// Naming zero cancels a pending transfer: the named address can no longer accept.
    function test_transferOwnership_toZeroCancels() public {
        vm.prank(OWNER);
        oracle.transferOwnership(STRANGER);
        vm.prank(OWNER);
        oracle.transferOwnership(address(0));
        assertEq(oracle.pendingOwner(), address(0));
        vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotPendingOwner.selector, STRANGER, address(0)));
        vm.prank(STRANGER);
        oracle.acceptOwnership();
        assertEq(oracle.owner(), OWNER);
    }

    // ---------------------------------------------------------------- registerGolem

    function test_register_startsThrivingAtFullScore() public {
        vm.expectEmit(true, true, true, true);
        emit IVitalityOracle.GolemRegistered(GOLEM, OWNER);
        _register(GOLEM);

        (bool registered, uint256 phase) = _phase(GOLEM);
        assertTrue(registered);
        assertEq(phase, 0);
        IVitalityOracle.GolemState memory s = oracle.getState(GOLEM);
        assertEq(uint256(s.phase), 0);
        assertTrue(s.registered);
        assertFalse(s.dead);
        assertEq(uint256(s.survivalScore), 10_000);
        assertEq(uint256(s.registeredAt), block.timestamp);
        assertEq(uint256(s.lastUpdated), block.timestamp);
    }

    function test_register_revertsForNonOwner() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotOwner.selector, GOLEM));
        vm.prank(GOLEM);
        oracle.registerGolem(GOLEM);
    }

    function test_register_revertsOnZeroAddress() public {
        vm.expectRevert(IVitalityOracle.ZeroAddress.selector);
        vm.prank(OWNER);
        oracle.registerGolem(address(0));
    }

    function test_register_revertsWhenAlreadyRegistered() public {
        _register(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemAlreadyRegistered.selector, GOLEM));
        vm.prank(OWNER);
        oracle.registerGolem(GOLEM);
    }

    function test_register_revertsForDeregisteredKey() public {
        _register(GOLEM);
        _update(GOLEM, 4, 0);
        vm.prank(OWNER);
        oracle.deregisterGolem(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemIsDead.selector, GOLEM));
        vm.prank(OWNER);
        oracle.registerGolem(GOLEM);
    }

    function test_register_revertsForRotatedAwayKey() public {
        _register(GOLEM);
        vm.prank(OWNER);
        oracle.rotateGolemKey(GOLEM, GOLEM2);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemIsDead.selector, GOLEM));
        vm.prank(OWNER);
        oracle.registerGolem(GOLEM);
    }

    // ---------------------------------------------------------------- updatePhase

    function test_update_movesForwardAndEmitsBothEvents() public {
        _register(GOLEM);
        vm.warp(block.timestamp + 100);
        vm.expectEmit(true, true, true, true);
        emit IVitalityOracle.VitalityReported(GOLEM, 2, 4200);
        vm.expectEmit(true, true, true, true);
        emit IVitalityOracle.PhaseTransition(GOLEM, 0, 2, 4200);
        _update(GOLEM, 2, 4200);

        IVitalityOracle.GolemState memory s = oracle.getState(GOLEM);
        assertEq(uint256(s.phase), 2);
        assertEq(uint256(s.survivalScore), 4200);
        assertEq(uint256(s.lastUpdated), block.timestamp);
        assertEq(uint256(s.registeredAt), block.timestamp - 100);
    }

    function test_update_samePhaseReportsWithoutTransition() public {
        _register(GOLEM);
        vm.recordLogs();
        _update(GOLEM, 0, 9000);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, 1, "only VitalityReported");
        assertEq(logs[0].topics[0], IVitalityOracle.VitalityReported.selector);
        assertEq(uint256(oracle.getState(GOLEM).survivalScore), 9000);
    }

    function test_update_revertsForUnregisteredKey() public {
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemNotRegistered.selector, STRANGER));
        _update(STRANGER, 1, 5000);
    }

    function test_update_revertsForDeadKey() public {
        _register(GOLEM);
        vm.prank(OWNER);
        oracle.deregisterGolem(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemNotRegistered.selector, GOLEM));
        _update(GOLEM, 4, 0);
    }

    function test_update_revertsOnInvalidPhase() public {
        _register(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.InvalidPhase.selector, uint8(5)));
        _update(GOLEM, 5, 5000);
    }

    function test_update_revertsOnInvalidScore() public {
        _register(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.InvalidSurvivalScore.selector, uint16(10_001)));
        _update(GOLEM, 1, 10_001);
    }

    function test_update_revertsWhenGoingBack() public {
        _register(GOLEM);
        _update(GOLEM, 3, 1000);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.PhaseNotMonotonic.selector, uint8(3), uint8(2)));
        _update(GOLEM, 2, 9000);
    }

    function test_update_onlyWritesCallersOwnState() public {
        _register(GOLEM);
        _register(GOLEM2);
        _update(GOLEM, 4, 0);
        (, uint256 other) = _phase(GOLEM2);
        assertEq(other, 0);
    }

    function testFuzz_update_isMonotonic(
        uint8 first,
        uint8 second,
        uint16 score
    ) public {
        first = uint8(bound(first, 0, 4));
        second = uint8(bound(second, 0, 4));
        score = uint16(bound(score, 0, 10_000));
        _register(GOLEM);
        _update(GOLEM, first, score);
        if (second < first) {
            vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.PhaseNotMonotonic.selector, first, second));
            _update(GOLEM, second, score);
            (, uint256 phase) = _phase(GOLEM);
            assertEq(phase, first);
        } else {
            _update(GOLEM, second, score);
            (, uint256 phase) = _phase(GOLEM);
            assertEq(phase, second);
        }
    }

    function testFuzz_update_validatesInputs(
        uint8 phase,
        uint16 score
    ) public {
        _register(GOLEM);
        vm.prank(GOLEM);
        if (phase > 4) {
            vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.InvalidPhase.selector, phase));
        } else if (score > 10_000) {
            vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.InvalidSurvivalScore.selector, score));
        }
        oracle.updatePhase(phase, score);
        if (phase <= 4 && score <= 10_000) {
            IVitalityOracle.GolemState memory s = oracle.getState(GOLEM);
            assertEq(uint256(s.phase), phase);
            assertEq(uint256(s.survivalScore), score);
        }
    }

    // ---------------------------------------------------------------- resetPhase

    function test_reset_movesBackAndIsEvented() public {
        _register(GOLEM);
        _update(GOLEM, 3, 1500);
        vm.expectEmit(true, true, true, true);
        emit IVitalityOracle.PhaseReset(GOLEM, 3, 1, OWNER, "fed 500 USDC");
        vm.prank(OWNER);
        oracle.resetPhase(GOLEM, 1, "fed 500 USDC");

        (, uint256 phase) = _phase(GOLEM);
        assertEq(phase, 1);
        assertEq(uint256(oracle.getState(GOLEM).survivalScore), 1500, "score kept until next report");
        // Monotonic again from the new phase.
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.PhaseNotMonotonic.selector, uint8(1), uint8(0)));
        _update(GOLEM, 0, 10_000);
        _update(GOLEM, 1, 8000);
    }

    function test_reset_revertsForNonOwner() public {
        _register(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotOwner.selector, GOLEM));
        vm.prank(GOLEM);
        oracle.resetPhase(GOLEM, 0, "self-heal");
    }

    function test_reset_revertsOnInvalidPhase() public {
        _register(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.InvalidPhase.selector, uint8(9)));
        vm.prank(OWNER);
        oracle.resetPhase(GOLEM, 9, "typo");
    }

    function test_reset_revertsOnEmptyReason() public {
        _register(GOLEM);
        vm.expectRevert(IVitalityOracle.EmptyReason.selector);
        vm.prank(OWNER);
        oracle.resetPhase(GOLEM, 0, "");
    }

    function test_reset_revertsForUnregisteredOrDead() public {
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemNotRegistered.selector, GOLEM));
        vm.prank(OWNER);
        oracle.resetPhase(GOLEM, 0, "ghost");

        _register(GOLEM);
        vm.prank(OWNER);
        oracle.deregisterGolem(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemNotRegistered.selector, GOLEM));
        vm.prank(OWNER);
        oracle.resetPhase(GOLEM, 0, "resurrect");
    }

    // ---------------------------------------------------------------- rotateGolemKey

    function test_rotate_newKeyInheritsStateOldKeyDies() public {
        _register(GOLEM);
        uint256 registeredAt = block.timestamp;
        vm.warp(block.timestamp + 1 days);
        _update(GOLEM, 2, 3000);

        vm.expectEmit(true, true, true, true);
        emit IVitalityOracle.GolemKeyRotated(GOLEM, GOLEM2);
        vm.prank(OWNER);
        oracle.rotateGolemKey(GOLEM, GOLEM2);

        IVitalityOracle.GolemState memory next = oracle.getState(GOLEM2);
        assertTrue(next.registered);
        assertFalse(next.dead);
        assertEq(uint256(next.phase), 2);
        assertEq(uint256(next.survivalScore), 3000);
        assertEq(uint256(next.registeredAt), registeredAt);
        IVitalityOracle.GolemState memory old = oracle.getState(GOLEM);
        assertFalse(old.registered);
        assertTrue(old.dead);

        // The old key can no longer report; the new key keeps monotonicity from the inherited phase.
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemNotRegistered.selector, GOLEM));
        _update(GOLEM, 4, 0);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.PhaseNotMonotonic.selector, uint8(2), uint8(0)));
        _update(GOLEM2, 0, 10_000);
    }

    function test_rotate_revertsForNonOwner() public {
        _register(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotOwner.selector, GOLEM));
        vm.prank(GOLEM);
        oracle.rotateGolemKey(GOLEM, GOLEM2);
    }

    function test_rotate_revertsOnZeroTarget() public {
        _register(GOLEM);
        vm.expectRevert(IVitalityOracle.ZeroAddress.selector);
        vm.prank(OWNER);
        oracle.rotateGolemKey(GOLEM, address(0));
    }

    function test_rotate_revertsForUnregisteredSource() public {
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemNotRegistered.selector, GOLEM));
        vm.prank(OWNER);
        oracle.rotateGolemKey(GOLEM, GOLEM2);
    }

    function test_rotate_revertsForDeadTarget() public {
        _register(GOLEM2);
        vm.prank(OWNER);
        oracle.deregisterGolem(GOLEM2);
        _register(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemIsDead.selector, GOLEM2));
        vm.prank(OWNER);
        oracle.rotateGolemKey(GOLEM, GOLEM2);
    }

    function test_rotate_revertsForRegisteredTarget() public {
        _register(GOLEM);
        _register(GOLEM2);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemAlreadyRegistered.selector, GOLEM2));
        vm.prank(OWNER);
        oracle.rotateGolemKey(GOLEM, GOLEM2);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemAlreadyRegistered.selector, GOLEM));
        vm.prank(OWNER);
        oracle.rotateGolemKey(GOLEM, GOLEM);
    }

    // ---------------------------------------------------------------- deregisterGolem

    function test_deregister_killsAndKeepsFinalPhase() public {
        _register(GOLEM);
        _update(GOLEM, 4, 120);
        vm.expectEmit(true, true, true, true);
        emit IVitalityOracle.GolemDeregistered(GOLEM, 4);
        vm.prank(OWNER);
        oracle.deregisterGolem(GOLEM);

        (bool registered, uint256 phase) = _phase(GOLEM);
        assertFalse(registered);
        assertEq(phase, 4);
        IVitalityOracle.GolemState memory s = oracle.getState(GOLEM);
        assertTrue(s.dead);
        assertEq(uint256(s.survivalScore), 120);
    }

    function test_deregister_revertsForNonOwner() public {
        _register(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotOwner.selector, STRANGER));
        vm.prank(STRANGER);
        oracle.deregisterGolem(GOLEM);
    }

    function test_deregister_revertsWhenNotRegistered() public {
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemNotRegistered.selector, GOLEM));
        vm.prank(OWNER);
        oracle.deregisterGolem(GOLEM);

        _register(GOLEM);
        vm.prank(OWNER);
        oracle.deregisterGolem(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(IVitalityOracle.GolemNotRegistered.selector, GOLEM));
        vm.prank(OWNER);
        oracle.deregisterGolem(GOLEM);
    }

    function testFuzz_unknownKeyReadsUnregistered(
        address who
    ) public view {
        (bool registered, uint256 phase) = _phase(who);
        assertFalse(registered);
        assertEq(phase, 0);
    }
}
