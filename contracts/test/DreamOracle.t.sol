// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "./lib/Test.sol";
import { DreamOracle } from "../src/oracles/DreamOracle.sol";
import { IDreamOracle } from "../src/interfaces/IDreamOracle.sol";

contract DreamOracleTest is Test {
    DreamOracle internal oracle;
    address internal constant GOLEM = address(0x601E);
    address internal constant OTHER = address(0x602E);

    function setUp() public {
        vm.warp(1_700_000_000);
        oracle = new DreamOracle();
    }

    function test_startDream_recordsAndEmits() public {
        vm.expectEmit(true, true, true, true);
        emit IDreamOracle.DreamStarted(GOLEM, uint64(block.timestamp));
        vm.prank(GOLEM);
        oracle.startDream();
        assertTrue(oracle.isDreaming(GOLEM));
        assertEq(uint256(oracle.dreamingSince(GOLEM)), block.timestamp);
    }

    function test_endDream_clearsAndReportsDuration() public {
        vm.prank(GOLEM);
        oracle.startDream();
        uint64 started = uint64(block.timestamp);
        vm.warp(block.timestamp + 3 hours);
        vm.expectEmit(true, true, true, true);
        emit IDreamOracle.DreamEnded(GOLEM, uint64(block.timestamp), uint64(block.timestamp) - started);
        vm.prank(GOLEM);
        oracle.endDream();
        assertFalse(oracle.isDreaming(GOLEM));
        assertEq(uint256(oracle.dreamingSince(GOLEM)), 0);
    }

    function test_startDream_revertsWhenAlreadyDreaming() public {
        vm.prank(GOLEM);
        oracle.startDream();
        vm.expectRevert(abi.encodeWithSelector(IDreamOracle.AlreadyDreaming.selector, GOLEM));
        vm.prank(GOLEM);
        oracle.startDream();
    }

    function test_endDream_revertsWhenAwake() public {
        vm.expectRevert(abi.encodeWithSelector(IDreamOracle.NotDreaming.selector, GOLEM));
        vm.prank(GOLEM);
        oracle.endDream();
    }

    function test_onlyTheKeyEndsItsOwnDream() public {
        vm.prank(GOLEM);
        oracle.startDream();
        // Another key's endDream is about its own (absent) dream.
        vm.expectRevert(abi.encodeWithSelector(IDreamOracle.NotDreaming.selector, OTHER));
        vm.prank(OTHER);
        oracle.endDream();
        assertTrue(oracle.isDreaming(GOLEM));
        assertFalse(oracle.isDreaming(OTHER));
    }

    function test_canDreamAgainAfterWaking() public {
        vm.startPrank(GOLEM);
        oracle.startDream();
        oracle.endDream();
        vm.warp(block.timestamp + 1);
        oracle.startDream();
        vm.stopPrank();
        assertEq(uint256(oracle.dreamingSince(GOLEM)), block.timestamp);
    }

    function testFuzz_cycle(
        address golem,
        uint32 start,
        uint32 length
    ) public {
        vm.assume(golem != address(0));
        uint256 startAt = bound(start, 1, type(uint32).max);
        vm.warp(startAt);
        vm.prank(golem);
        oracle.startDream();
        assertEq(uint256(oracle.dreamingSince(golem)), startAt);
        vm.warp(startAt + length);
        vm.expectEmit(true, true, true, true);
        emit IDreamOracle.DreamEnded(golem, uint64(startAt + length), uint64(length));
        vm.prank(golem);
        oracle.endDream();
        assertFalse(oracle.isDreaming(golem));
    }
}
