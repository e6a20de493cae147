// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "./lib/Test.sol";
import { DaimonOracle } from "../src/oracles/DaimonOracle.sol";
import { IDaimonOracle } from "../src/interfaces/IDaimonOracle.sol";

contract DaimonOracleTest is Test {
    DaimonOracle internal oracle;
    address internal constant GOLEM = address(0x601E);
    address internal constant OTHER = address(0x602E);

    function setUp() public {
        oracle = new DaimonOracle();
    }

    function _pad(
        address golem
    ) internal view returns (int256 p, int256 a, int256 d) {
        (int8 p8, int8 a8, int8 d8) = oracle.getPAD(golem);
        return (p8, a8, d8);
    }

    function test_unreportedGolemIsNeutral() public view {
        (int256 p, int256 a, int256 d) = _pad(GOLEM);
        assertEq(p, 0);
        assertEq(a, 0);
        assertEq(d, 0);
    }

    function test_setPAD_recordsAndEmits() public {
        vm.expectEmit(true, true, true, true);
        emit IDaimonOracle.PADUpdated(GOLEM, -40, 90, -100);
        vm.prank(GOLEM);
        oracle.setPAD(-40, 90, -100);
        (int256 p, int256 a, int256 d) = _pad(GOLEM);
        assertEq(p, -40);
        assertEq(a, 90);
        assertEq(d, -100);
        (p, a, d) = _pad(OTHER);
        assertEq(p, 0, "other keys untouched");
    }

    function test_setPAD_acceptsTheBounds() public {
        vm.prank(GOLEM);
        oracle.setPAD(-100, 100, -100);
        vm.prank(GOLEM);
        oracle.setPAD(100, -100, 100);
        (int256 p, int256 a, int256 d) = _pad(GOLEM);
        assertEq(p, 100);
        assertEq(a, -100);
        assertEq(d, 100);
    }

    function test_setPAD_revertsOnPleasureOutOfRange() public {
        vm.expectRevert(abi.encodeWithSelector(IDaimonOracle.PADOutOfRange.selector, int8(101), int8(0), int8(0)));
        vm.prank(GOLEM);
        oracle.setPAD(101, 0, 0);
    }

    function test_setPAD_revertsOnArousalOutOfRange() public {
        vm.expectRevert(abi.encodeWithSelector(IDaimonOracle.PADOutOfRange.selector, int8(0), int8(-101), int8(0)));
        vm.prank(GOLEM);
        oracle.setPAD(0, -101, 0);
    }

    function test_setPAD_revertsOnDominanceOutOfRange() public {
        vm.expectRevert(abi.encodeWithSelector(IDaimonOracle.PADOutOfRange.selector, int8(0), int8(0), int8(-128)));
        vm.prank(GOLEM);
        oracle.setPAD(0, 0, -128);
    }

    function testFuzz_setPAD(
        int8 p,
        int8 a,
        int8 d
    ) public {
        bool valid = p >= -100 && p <= 100 && a >= -100 && a <= 100 && d >= -100 && d <= 100;
        if (!valid) vm.expectRevert(abi.encodeWithSelector(IDaimonOracle.PADOutOfRange.selector, p, a, d));
        vm.prank(GOLEM);
        oracle.setPAD(p, a, d);
        (int256 gp, int256 ga, int256 gd) = _pad(GOLEM);
        if (valid) {
            assertEq(gp, p);
            assertEq(ga, a);
            assertEq(gd, d);
        } else {
            assertEq(gp, 0);
            assertEq(ga, 0);
            assertEq(gd, 0);
        }
    }
}
