// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "./lib/Test.sol";
import { MockPriceFeed } from "../src/test-assets/MockPriceFeed.sol";

contract MockPriceFeedTest is Test {
    MockPriceFeed feed;

    function setUp() public {
        vm.warp(1_700_000_000);
        feed = new MockPriceFeed(8, 3000e8, "ETH / USD");
    }

    function test_constructorOpensRoundOne() public view {
        (uint80 id, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredIn) = feed.latestRoundData();
        assertEq(uint256(id), 1);
        assertEq(answer, int256(3000e8));
        assertEq(startedAt, 1_700_000_000);
        assertEq(updatedAt, 1_700_000_000);
        assertEq(uint256(answeredIn), 1);
        assertEq(uint256(feed.decimals()), 8);
        assertEq(bytes(feed.description()), bytes("ETH / USD"), "description");
        assertEq(feed.version(), 4);
        assertEq(feed.latestAnswer(), int256(3000e8));
    }

    function test_setAnswerOpensANewRoundNow() public {
        vm.warp(1_700_000_100);
        feed.setAnswer(3100e8);
        (uint80 id, int256 answer,, uint256 updatedAt,) = feed.latestRoundData();
        assertEq(uint256(id), 2);
        assertEq(answer, int256(3100e8));
        assertEq(updatedAt, 1_700_000_100);
        (, int256 old,, uint256 oldAt,) = feed.getRoundData(1);
        assertEq(old, int256(3000e8), "old round kept");
        assertEq(oldAt, 1_700_000_000);
    }

    function test_setRoundDataBackdates() public {
        feed.setRoundData(-5, 123);
        (, int256 answer,, uint256 updatedAt,) = feed.latestRoundData();
        assertEq(answer, int256(-5));
        assertEq(updatedAt, 123);
    }

    function test_unknownRound() public {
        vm.expectRevert(abi.encodeWithSelector(MockPriceFeed.NoDataPresent.selector, uint80(0)));
        feed.getRoundData(0);
        vm.expectRevert(abi.encodeWithSelector(MockPriceFeed.NoDataPresent.selector, uint80(2)));
        feed.getRoundData(2);
    }

    function test_emitsAnswerUpdated() public {
        vm.expectEmit(true, true, false, true);
        emit MockPriceFeed.AnswerUpdated(int256(42), 2, block.timestamp);
        feed.setAnswer(42);
    }

    function testFuzz_roundsAccumulate(
        int256[5] memory answers
    ) public {
        for (uint256 i; i < answers.length; ++i) {
            feed.setAnswer(answers[i]);
        }
        for (uint256 i; i < answers.length; ++i) {
            (, int256 a,,,) = feed.getRoundData(uint80(i + 2));
            assertEq(a, answers[i]);
        }
        assertEq(uint256(feed.latestRound()), answers.length + 1);
    }
}
