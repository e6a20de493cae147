// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { GolemHookTest } from "./lib/GolemHookTest.sol";
import { MortalityTimeWindowEnforcer } from "../src/enforcers/MortalityTimeWindowEnforcer.sol";
import { ICaveatEnforcer } from "../src/interfaces/ICaveatEnforcer.sol";
import { Execution } from "../src/libraries/ExecutionLib.sol";

contract MortalityTimeWindowEnforcerTest is GolemHookTest {
    MortalityTimeWindowEnforcer internal enforcer;
    address internal constant GOLEM = address(0x601E);
    address internal constant TARGET = address(0x7A46E7);
    uint256 internal constant START = 1_700_000_000;
    uint256 internal constant END = START + 30 days;

    function setUp() public {
        enforcer = new MortalityTimeWindowEnforcer();
    }

    function _terms(
        uint256 start,
        uint256 end
    ) internal pure returns (bytes memory) {
        return abi.encode(start, end);
    }

    function _hook(
        bytes memory terms
    ) internal {
        _before(ICaveatEnforcer(address(enforcer)), terms, SINGLE, _single(TARGET, 0, hex"a9059cbb"), GOLEM);
    }

    function test_passesInsideWindowIncludingBothEdges() public {
        vm.warp(START);
        _hook(_terms(START, END));
        vm.warp(START + 1 days);
        _hook(_terms(START, END));
        vm.warp(END);
        _hook(_terms(START, END));
    }

    function test_revertsBeforeStart() public {
        vm.warp(START - 1);
        vm.expectRevert(abi.encodeWithSelector(MortalityTimeWindowEnforcer.DelegationNotYetActive.selector, START - 1, START));
        _hook(_terms(START, END));
    }

    function test_revertsAfterEnd() public {
        vm.warp(END + 1);
        vm.expectRevert(abi.encodeWithSelector(MortalityTimeWindowEnforcer.DelegationExpired.selector, END + 1, END));
        _hook(_terms(START, END));
    }

    function test_revertsOnEmptyWindow() public {
        vm.expectRevert(abi.encodeWithSelector(MortalityTimeWindowEnforcer.InvalidWindow.selector, START, START));
        _hook(_terms(START, START));
    }

    function test_revertsOnInvertedWindow() public {
        vm.expectRevert(abi.encodeWithSelector(MortalityTimeWindowEnforcer.InvalidWindow.selector, END, START));
        enforcer.getTermsInfo(_terms(END, START));
    }

    function testFuzz_revertsOnWrongLength(
        bytes calldata terms
    ) public {
        vm.assume(terms.length != 64);
        vm.expectRevert(abi.encodeWithSelector(MortalityTimeWindowEnforcer.InvalidTermsLength.selector, terms.length));
        _hook(terms);
    }

    function test_batchIsGatedToo() public {
        vm.warp(END + 1);
        Execution[] memory ex = new Execution[](1);
        ex[0] = _exec(TARGET, hex"a9059cbb");
        vm.expectRevert(abi.encodeWithSelector(MortalityTimeWindowEnforcer.DelegationExpired.selector, END + 1, END));
        _before(ICaveatEnforcer(address(enforcer)), _terms(START, END), BATCH, _batch(ex), GOLEM);
    }

    function testFuzz_windowModel(
        uint64 start,
        uint64 end,
        uint64 now_
    ) public {
        vm.warp(now_);
        bytes memory terms = _terms(start, end);
        if (end <= start) {
            vm.expectRevert(abi.encodeWithSelector(MortalityTimeWindowEnforcer.InvalidWindow.selector, start, end));
        } else if (now_ < start) {
            vm.expectRevert(abi.encodeWithSelector(MortalityTimeWindowEnforcer.DelegationNotYetActive.selector, now_, start));
        } else if (now_ > end) {
            vm.expectRevert(abi.encodeWithSelector(MortalityTimeWindowEnforcer.DelegationExpired.selector, now_, end));
        }
        _hook(terms);
    }

    function test_getTermsInfo() public view {
        (uint256 s, uint256 e) = enforcer.getTermsInfo(_terms(START, END));
        assertEq(s, START);
        assertEq(e, END);
    }

    function test_timeRemaining() public {
        bytes memory terms = _terms(START, END);
        vm.warp(START - 100);
        assertEq(enforcer.timeRemaining(terms), END - START + 100, "counts to end before start");
        vm.warp(START + 1 days);
        assertEq(enforcer.timeRemaining(terms), 29 days);
        vm.warp(END);
        assertEq(enforcer.timeRemaining(terms), 0);
        vm.warp(END + 5);
        assertEq(enforcer.timeRemaining(terms), 0);
    }

    function testFuzz_timeRemaining(
        uint64 end,
        uint64 now_
    ) public {
        vm.assume(end > 0);
        vm.warp(now_);
        uint256 remaining = enforcer.timeRemaining(_terms(0, end));
        assertEq(remaining, now_ >= end ? 0 : uint256(end) - now_);
    }

    function test_timeRemaining_revertsOnBadTerms() public {
        vm.expectRevert(abi.encodeWithSelector(MortalityTimeWindowEnforcer.InvalidTermsLength.selector, uint256(32)));
        enforcer.timeRemaining(abi.encode(END));
    }

    event log_named_uint(string key, uint256 val);

    function test_gas_beforeHook() public {
        vm.warp(START + 1);
        bytes memory terms = _terms(START, END);
        bytes memory ex = _single(TARGET, 0, hex"a9059cbb");
        vm.prank(MANAGER);
        uint256 g = gasleft();
        enforcer.beforeHook(terms, "", SINGLE, ex, HASH, DELEGATOR, GOLEM);
        emit log_named_uint("MortalityTimeWindow.beforeHook (cold)", g - gasleft());
    }
}
