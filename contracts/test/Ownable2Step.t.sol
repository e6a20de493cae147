// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "./lib/Test.sol";
import { Ownable2Step } from "../src/access/Ownable2Step.sol";
import { VitalityOracle } from "../src/oracles/VitalityOracle.sol";
import { GolemPhaseEnforcer } from "../src/enforcers/GolemPhaseEnforcer.sol";

/// The two-step transfer of both platform roles (the VitalityOracle's owner, the GolemPhase table's owner),
/// and their separation: each key holds only its own role, and a role moves only when the named address
/// accepts it.
contract Ownable2StepTest is Test {
    address internal constant OPERATOR = address(0x0A);
    address internal constant TABLE_ADMIN = address(0xAD);
    address internal constant NEXT = address(0x0B);
    address internal constant STRANGER = address(0x5);

    VitalityOracle internal oracle;
    GolemPhaseEnforcer internal phase;

    function setUp() public {
        oracle = new VitalityOracle(OPERATOR);
        phase = new GolemPhaseEnforcer(address(oracle), TABLE_ADMIN);
    }

    function _roles() internal view returns (Ownable2Step[2] memory r, address[2] memory owners) {
        r = [Ownable2Step(address(oracle)), Ownable2Step(address(phase))];
        owners = [OPERATOR, TABLE_ADMIN];
    }

    /// Does `who` hold the contract's owner powers right now (tried, then rolled back)?
    function _canUseRole(
        uint256 i,
        address who
    ) internal returns (bool ok) {
        uint256 snapshot = vm.snapshotState();
        vm.prank(who);
        if (i == 0) (ok,) = address(oracle).call(abi.encodeCall(VitalityOracle.registerGolem, (address(0x6001))));
        else (ok,) = address(phase).call(abi.encodeCall(GolemPhaseEnforcer.setActionClass, (bytes4(0x12345678), uint8(1))));
        vm.revertToState(snapshot);
    }

    function test_theRolesAreSeparate() public {
        assertEq(oracle.owner(), OPERATOR);
        assertEq(phase.owner(), TABLE_ADMIN);
        assertTrue(_canUseRole(0, OPERATOR));
        assertFalse(_canUseRole(0, TABLE_ADMIN), "the table admin cannot register Golems");
        assertTrue(_canUseRole(1, TABLE_ADMIN));
        assertFalse(_canUseRole(1, OPERATOR), "the oracle's owner cannot reclassify selectors");
    }

    function test_naming_doesNotMoveTheRole() public {
        (Ownable2Step[2] memory r, address[2] memory owners) = _roles();
        for (uint256 i; i < 2; ++i) {
            vm.prank(owners[i]);
            r[i].transferOwnership(NEXT);
            assertEq(r[i].owner(), owners[i]);
            assertEq(r[i].pendingOwner(), NEXT);
            assertTrue(_canUseRole(i, owners[i]), "the owner keeps the role until acceptance");
            assertFalse(_canUseRole(i, NEXT), "the named address has nothing before it accepts");
        }
    }

    function test_onlyThePendingOwnerAccepts() public {
        (Ownable2Step[2] memory r, address[2] memory owners) = _roles();
        for (uint256 i; i < 2; ++i) {
            vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotPendingOwner.selector, NEXT, address(0)));
            vm.prank(NEXT);
            r[i].acceptOwnership(); // nothing pending
            vm.prank(owners[i]);
            r[i].transferOwnership(NEXT);
            vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotPendingOwner.selector, STRANGER, NEXT));
            vm.prank(STRANGER);
            r[i].acceptOwnership();
            vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotPendingOwner.selector, owners[i], NEXT));
            vm.prank(owners[i]);
            r[i].acceptOwnership();
            vm.prank(NEXT);
            r[i].acceptOwnership();
            assertEq(r[i].owner(), NEXT);
            assertEq(r[i].pendingOwner(), address(0));
            assertTrue(_canUseRole(i, NEXT));
            assertFalse(_canUseRole(i, owners[i]), "the old owner lost the role");
            vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotPendingOwner.selector, NEXT, address(0)));
            vm.prank(NEXT);
            r[i].acceptOwnership(); // accepting twice is refused
        }
    }

    function test_replacingAndCancellingAPendingTransfer() public {
        (Ownable2Step[2] memory r, address[2] memory owners) = _roles();
        for (uint256 i; i < 2; ++i) {
            vm.startPrank(owners[i]);
            r[i].transferOwnership(STRANGER); // a mistyped address
            r[i].transferOwnership(NEXT); // corrected
            vm.stopPrank();
            vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotPendingOwner.selector, STRANGER, NEXT));
            vm.prank(STRANGER);
            r[i].acceptOwnership();
            vm.prank(owners[i]);
            r[i].transferOwnership(address(0)); // cancelled
            vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotPendingOwner.selector, NEXT, address(0)));
            vm.prank(NEXT);
            r[i].acceptOwnership();
            assertEq(r[i].owner(), owners[i]);
        }
    }

    function test_onlyTheOwnerNames() public {
        (Ownable2Step[2] memory r, address[2] memory owners) = _roles();
        for (uint256 i; i < 2; ++i) {
            address other = owners[1 - i];
            vm.expectRevert(abi.encodeWithSelector(Ownable2Step.NotOwner.selector, other));
            vm.prank(other);
            r[i].transferOwnership(other);
        }
    }

    /// Any caller, any named address: the role is held by exactly the owner until the named address (and
    /// only it) accepts.
    function testFuzz_roleMovesOnlyToTheAcceptingPendingOwner(
        address caller,
        address named,
        bool table
    ) public {
        vm.assume(named != address(0) && caller != address(0));
        uint256 i = table ? 1 : 0;
        (Ownable2Step[2] memory r, address[2] memory owners) = _roles();
        vm.prank(caller);
        (bool named_,) = address(r[i]).call(abi.encodeCall(Ownable2Step.transferOwnership, (named)));
        assertEq(named_, caller == owners[i], "only the owner names");
        if (!named_) {
            vm.prank(owners[i]);
            r[i].transferOwnership(named);
        }
        vm.prank(caller);
        (bool accepted,) = address(r[i]).call(abi.encodeCall(Ownable2Step.acceptOwnership, ()));
        assertEq(accepted, caller == named, "only the named address accepts");
        assertEq(r[i].owner(), accepted ? named : owners[i]);
    }
}
