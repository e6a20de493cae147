// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "./lib/Test.sol";
import { PolicyCage } from "../src/oracles/PolicyCage.sol";
import { VitalityOracle } from "../src/oracles/VitalityOracle.sol";
import { IPolicyCage } from "../src/interfaces/IPolicyCage.sol";
import { IVitalityOracle } from "../src/interfaces/IVitalityOracle.sol";

contract PolicyCageTest is Test {
    PolicyCage internal cage;
    VitalityOracle internal oracle;
    address internal constant OWNER = address(0x0A);
    address internal constant NEW_OWNER = address(0x0B);
    address internal constant GOLEM = address(0x601E);
    address internal constant STRANGER = address(0xBAD);
    bytes32 internal constant HASH = keccak256("constitution v1");

    /// The constitution as core/policy/constitutionHash.ts encodes it.
    struct Asset {
        address asset;
        uint16 maxConcentrationBps;
    }

    struct Constitution {
        uint8 v;
        address baseAsset;
        Asset[] assets;
        uint256 maxTransactionUsd;
        uint256 maxSessionUsd;
        uint256 maxDayUsd;
        uint16 maxDrawdownBps;
        uint8 revokeOnMask;
    }

    function setUp() public {
        vm.warp(1_700_000_000);
        oracle = new VitalityOracle(OWNER);
        cage = new PolicyCage(IVitalityOracle(address(oracle)));
        vm.prank(OWNER);
        oracle.registerGolem(GOLEM);
    }

    function test_constructor_revertsOnZeroOracle() public {
        vm.expectRevert(IPolicyCage.ZeroAddress.selector);
        new PolicyCage(IVitalityOracle(address(0)));
    }

    function test_noConstitutionReadsZero() public view {
        assertEq(cage.constitutionHash(GOLEM), bytes32(0));
        (bytes32 h, uint64 setAt) = cage.getConstitution(GOLEM);
        assertEq(h, bytes32(0));
        assertEq(uint256(setAt), 0);
    }

    function test_setConstitution_recordsAndEmits() public {
        vm.expectEmit(true, true, true, true);
        emit IPolicyCage.ConstitutionSet(GOLEM, bytes32(0), HASH, OWNER);
        vm.prank(OWNER);
        cage.setConstitution(GOLEM, HASH);
        assertEq(cage.constitutionHash(GOLEM), HASH);
        (bytes32 h, uint64 setAt) = cage.getConstitution(GOLEM);
        assertEq(h, HASH);
        assertEq(uint256(setAt), block.timestamp);
    }

    function test_setConstitution_replacesAndNamesThePrevious() public {
        vm.prank(OWNER);
        cage.setConstitution(GOLEM, HASH);
        bytes32 next = keccak256("constitution v2");
        vm.expectEmit(true, true, true, true);
        emit IPolicyCage.ConstitutionSet(GOLEM, HASH, next, OWNER);
        vm.prank(OWNER);
        cage.setConstitution(GOLEM, next);
        assertEq(cage.constitutionHash(GOLEM), next);
    }

    function test_setConstitution_revertsForAnyoneButTheOracleOwner() public {
        vm.expectRevert(abi.encodeWithSelector(IPolicyCage.NotOracleOwner.selector, GOLEM, OWNER));
        vm.prank(GOLEM);
        cage.setConstitution(GOLEM, HASH);
    }

    function test_setConstitution_followsTheOracleOwnershipTransfer() public {
        vm.prank(OWNER);
        oracle.transferOwnership(NEW_OWNER);
        vm.prank(NEW_OWNER);
        oracle.acceptOwnership();
        vm.expectRevert(abi.encodeWithSelector(IPolicyCage.NotOracleOwner.selector, OWNER, NEW_OWNER));
        vm.prank(OWNER);
        cage.setConstitution(GOLEM, HASH);
        vm.prank(NEW_OWNER);
        cage.setConstitution(GOLEM, HASH);
        assertEq(cage.constitutionHash(GOLEM), HASH);
    }

    function test_setConstitution_revertsOnZeroHash() public {
        vm.expectRevert(IPolicyCage.EmptyConstitution.selector);
        vm.prank(OWNER);
        cage.setConstitution(GOLEM, bytes32(0));
    }

    function test_setConstitution_revertsForAnUnregisteredOrDeadGolem() public {
        vm.expectRevert(abi.encodeWithSelector(IPolicyCage.GolemNotRegistered.selector, STRANGER));
        vm.prank(OWNER);
        cage.setConstitution(STRANGER, HASH);
        vm.prank(OWNER);
        oracle.deregisterGolem(GOLEM);
        vm.expectRevert(abi.encodeWithSelector(IPolicyCage.GolemNotRegistered.selector, GOLEM));
        vm.prank(OWNER);
        cage.setConstitution(GOLEM, HASH);
    }

    function test_carryConstitution_givesTheRotatedKeyTheSameHash() public {
        address next = address(0x602E);
        vm.startPrank(OWNER);
        cage.setConstitution(GOLEM, HASH);
        oracle.rotateGolemKey(GOLEM, next);
        vm.expectEmit(true, true, true, true);
        emit IPolicyCage.ConstitutionSet(next, bytes32(0), HASH, OWNER);
        cage.carryConstitution(GOLEM, next);
        vm.stopPrank();
        assertEq(cage.constitutionHash(next), HASH);
    }

    function test_carryConstitution_reverts() public {
        address next = address(0x602E);
        vm.expectRevert(abi.encodeWithSelector(IPolicyCage.NotOracleOwner.selector, STRANGER, OWNER));
        vm.prank(STRANGER);
        cage.carryConstitution(GOLEM, next);
        vm.startPrank(OWNER);
        vm.expectRevert(abi.encodeWithSelector(IPolicyCage.GolemNotRegistered.selector, next));
        cage.carryConstitution(GOLEM, next);
        oracle.rotateGolemKey(GOLEM, next);
        vm.expectRevert(abi.encodeWithSelector(IPolicyCage.NoConstitution.selector, GOLEM));
        cage.carryConstitution(GOLEM, next);
        vm.stopPrank();
    }

    /// The hash core/policy computes for this constitution (assets sorted by address, revokeOn
    /// approvedAsset + maxDrawdown = bits 0 and 1) is keccak256(abi.encode(constitution)).
    function test_hashIsTheAbiEncodingCoreComputes() public pure {
        Asset[] memory assets = new Asset[](2);
        assets[0] = Asset({ asset: address(0xe0), maxConcentrationBps: 2500 });
        assets[1] = Asset({ asset: address(0xf0), maxConcentrationBps: 5000 });
        Constitution memory c = Constitution({
            v: 1,
            baseAsset: address(0xc0),
            assets: assets,
            maxTransactionUsd: 100_000_000,
            maxSessionUsd: 250_000_000,
            maxDayUsd: 400_000_000,
            maxDrawdownBps: 1500,
            revokeOnMask: 3
        });
        assertEq(keccak256(abi.encode(c)), 0x89502266cc3450d31c846d9a9fa92c4314c2c583bfd988077a6564c0b2f42f63);
    }

    function testFuzz_onlyTheOracleOwnerSets(
        address caller,
        bytes32 h
    ) public {
        vm.assume(caller != OWNER);
        vm.expectRevert(abi.encodeWithSelector(IPolicyCage.NotOracleOwner.selector, caller, OWNER));
        vm.prank(caller);
        cage.setConstitution(GOLEM, h);
        assertEq(cage.constitutionHash(GOLEM), bytes32(0));
    }

    function testFuzz_theLastNonZeroHashSetIsRead(
        bytes32 first,
        bytes32 second,
        uint32 later
    ) public {
        vm.assume(first != bytes32(0) && second != bytes32(0));
        vm.prank(OWNER);
        cage.setConstitution(GOLEM, first);
        vm.warp(block.timestamp + later);
        vm.prank(OWNER);
        cage.setConstitution(GOLEM, second);
        (bytes32 h, uint64 setAt) = cage.getConstitution(GOLEM);
        assertEq(h, second);
        assertEq(uint256(setAt), block.timestamp);
    }

    function testFuzz_golemsAreIndependent(
        address other,
        bytes32 h
    ) public {
        vm.assume(other != GOLEM && other != address(0) && h != bytes32(0));
        vm.startPrank(OWNER);
        oracle.registerGolem(other);
        cage.setConstitution(other, h);
        vm.stopPrank();
        assertEq(cage.constitutionHash(GOLEM), bytes32(0));
        assertEq(cage.constitutionHash(other), h);
    }
}
