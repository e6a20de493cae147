// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PricedAssetsTest } from "./helpers/PricedAssetsTest.sol";
import { Execution, ExecutionLib } from "../src/libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../src/libraries/UsdValuation.sol";
import { DailySpendLimitEnforcer } from "../src/enforcers/DailySpendLimitEnforcer.sol";
import { MockPriceFeed } from "../src/test-assets/MockPriceFeed.sol";

contract DailySpendLimitEnforcerTest is PricedAssetsTest {
    event SpendRecorded(
        address indexed delegationManager,
        bytes32 indexed delegationHash,
        uint256 day,
        uint256 amountUsd,
        uint256 spentTodayUsd,
        uint256 dailyLimitUsd
    );

    DailySpendLimitEnforcer enforcer;
    uint256 constant LIMIT = 1000e6; // $1000 / day
    bytes terms;
    uint256 day0;

    function setUp() public {
        setUpAssets();
        enforcer = new DailySpendLimitEnforcer(address(0), 0);
        terms = abi.encode(LIMIT, MAX_AGE, allFeeds());
        day0 = T0 / 1 days;
    }

    function _hook(
        bytes memory t,
        bytes32 mode,
        bytes memory execution,
        bytes32 hash
    ) internal {
        enforcer.beforeHook(t, "", mode, execution, hash, DELEGATOR, REDEEMER);
    }

    function _spend(
        uint256 usdcAmount
    ) internal {
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, transferCall(usdcAmount)), HASH);
    }

    function _exceeded(
        uint256 day,
        uint256 spent,
        uint256 requested
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(DailySpendLimitEnforcer.DailySpendLimitExceeded.selector, day, spent, requested, LIMIT);
    }

    // ------------------------------------------------------------------ recording

    function test_recordsSingleTransferAndEmits() public {
        vm.expectEmit(true, true, true, true);
        emit SpendRecorded(MANAGER, HASH, day0, 250e6, 250e6, LIMIT);
        _spend(250e6);
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), 250e6);
        (uint256 left, uint256 resetsAt) = enforcer.remainingToday(MANAGER, HASH, terms);
        assertEq(left, 750e6);
        assertEq(resetsAt, (day0 + 1) * 1 days);
    }

    function test_accumulatesAcrossRedemptions() public {
        _spend(400e6);
        vm.expectEmit(true, true, true, true);
        emit SpendRecorded(MANAGER, HASH, day0, 100e6, 500e6, LIMIT);
        _spend(100e6);
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), 500e6);
    }

    function test_exactLimitPassesOneMicroDollarMoreFails() public {
        _spend(LIMIT - 1);
        _spend(1); // exactly at the limit
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), LIMIT);
        vm.expectRevert(_exceeded(day0, LIMIT, 1));
        _spend(1);
        (uint256 left,) = enforcer.remainingToday(MANAGER, HASH, terms);
        assertEq(left, 0);
    }

    function test_singleRedemptionOverLimit() public {
        vm.expectRevert(_exceeded(day0, 0, LIMIT + 1));
        _spend(LIMIT + 1);
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), 0, "nothing recorded");
    }

    function test_native() public {
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(PAYEE, 0.1 ether, ""), HASH);
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), 300e6);
    }

    function test_batchSumsEveryAsset() public {
        Execution[] memory e = execs(
            Execution(PAYEE, 0.1 ether, ""), // $300
            Execution(address(weth), 0, approveCall(0.1 ether)), // $300
            Execution(address(usdc), 0, transferFromCall(399e6)) // $399
        );
        vm.prank(MANAGER);
        _hook(terms, BATCH, batch(e), HASH);
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), 999e6);
        vm.expectRevert(_exceeded(day0, 999e6, 2e6));
        vm.prank(MANAGER);
        _hook(terms, BATCH, batch(execs(Execution(address(dai), 0, transferCall(2e18)))), HASH);
    }

    function test_roundsUp() public {
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(PAYEE, 1, ""), HASH); // 1 wei = $3e-15 -> 1 micro-dollar
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), 1);
    }

    function test_zeroValueWritesNothing() public {
        vm.recordLogs();
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, approveCall(0)), HASH);
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(unlisted), 0, transferCall(1e30)), HASH); // unlisted counts 0
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, abi.encodeWithSignature("balanceOf(address)", PAYEE)), HASH);
        assertEq(vm.getRecordedLogs().length, 0, "no event");
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), 0);
    }

    function test_limitAboveUint192IsCapped() public {
        uint256 huge = uint256(type(uint192).max) + 1;
        bytes memory t = abi.encode(huge, MAX_AGE, allFeeds());
        (uint256 left,) = enforcer.remainingToday(MANAGER, HASH, t);
        assertEq(left, type(uint192).max);
        vm.prank(MANAGER);
        _hook(t, SINGLE, single(address(usdc), 0, transferCall(1e6)), HASH);
        vm.expectRevert(
            abi.encodeWithSelector(DailySpendLimitEnforcer.DailySpendLimitExceeded.selector, day0, 1e6, type(uint256).max, huge)
        );
        vm.prank(MANAGER);
        _hook(t, SINGLE, single(address(usdc), 0, approveCall(type(uint256).max)), HASH);
    }

    function test_unlimitedApprovalIsRefused() public {
        vm.expectRevert(_exceeded(day0, 0, type(uint256).max));
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, approveCall(type(uint256).max)), HASH);
    }

    // ------------------------------------------------------------------ days

    function test_dayRollover() public {
        _spend(LIMIT);
        vm.warp((day0 + 1) * 1 days - 1); // last second of the day
        usdcFeed.setAnswer(1e8); // keep the price fresh across the warp
        vm.expectRevert(_exceeded(day0, LIMIT, 1));
        _spend(1);
        vm.warp((day0 + 1) * 1 days); // 00:00:00 UTC
        usdcFeed.setAnswer(1e8);
        (uint256 left, uint256 resetsAt) = enforcer.remainingToday(MANAGER, HASH, terms);
        assertEq(left, LIMIT);
        assertEq(resetsAt, (day0 + 2) * 1 days);
        vm.expectEmit(true, true, true, true);
        emit SpendRecorded(MANAGER, HASH, day0 + 1, LIMIT, LIMIT, LIMIT);
        _spend(LIMIT);
        assertEq(enforcer.spentOn(MANAGER, HASH, day0 + 1), LIMIT);
        // one slot per delegation: yesterday is overwritten (its history is in SpendRecorded events)
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), 0, "yesterday not kept on-chain");
        assertEq(enforcer.spentOn(MANAGER, HASH, day0 + 2), 0, "tomorrow starts at 0");
    }

    // ------------------------------------------------------------------ isolation

    function test_stateIsolatedByManagerAndHash() public {
        _spend(LIMIT);
        vm.prank(OTHER_MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, transferCall(LIMIT)), HASH);
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, transferCall(LIMIT)), OTHER_HASH);
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), LIMIT);
        assertEq(enforcer.spentOn(OTHER_MANAGER, HASH, day0), LIMIT);
        assertEq(enforcer.spentOn(MANAGER, OTHER_HASH, day0), LIMIT);
        vm.expectRevert(_exceeded(day0, LIMIT, 1));
        _spend(1);
    }

    function test_twoCaveatsSharingTheSlotNeverUnderflow() public {
        // One delegation carrying two DailySpendLimit caveats shares (manager, hash): both count every
        // redemption, and the smaller limit sees spent > limit. It must refuse, not panic.
        bytes memory big = abi.encode(uint256(5000e6), MAX_AGE, allFeeds());
        vm.prank(MANAGER);
        _hook(big, SINGLE, single(address(usdc), 0, transferCall(1500e6)), HASH);
        vm.expectRevert(_exceeded(day0, 1500e6, 1));
        _spend(1);
        (uint256 left,) = enforcer.remainingToday(MANAGER, HASH, terms);
        assertEq(left, 0);
    }

    // ------------------------------------------------------------------ modes

    function test_rejectsTryMode() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedExecType.selector, bytes1(0x01)));
        vm.prank(MANAGER);
        _hook(terms, SINGLE_TRY, single(address(usdc), 0, transferCall(1)), HASH);
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedExecType.selector, bytes1(0x01)));
        vm.prank(MANAGER);
        _hook(terms, BATCH_TRY, batch(execs(Execution(address(usdc), 0, transferCall(1)))), HASH);
    }

    function test_rejectsDelegatecall() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0xff)));
        vm.prank(MANAGER);
        _hook(terms, DELEGATECALL, single(address(usdc), 0, transferCall(1)), HASH);
    }

    function test_rejectsMalformedSingle() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.MalformedExecution.selector, uint256(20)));
        vm.prank(MANAGER);
        _hook(terms, SINGLE, abi.encodePacked(address(usdc)), HASH);
    }

    function test_rejectsMalformedBatch() public {
        vm.expectRevert(); // abi.decode of Execution[] refuses garbage (no error data)
        vm.prank(MANAGER);
        _hook(terms, BATCH, hex"00000000000000000000000000000000000000000000000000000000000000ff", HASH);
    }

    // ------------------------------------------------------------------ prices

    function test_stalePrice() public {
        usdcFeed.setRoundData(1e8, T0 - MAX_AGE - 1);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.StalePrice.selector, address(usdcFeed), T0 - MAX_AGE - 1, MAX_AGE));
        _spend(1);
    }

    function test_priceAtMaxAgeIsAccepted() public {
        usdcFeed.setRoundData(1e8, T0 - MAX_AGE);
        _spend(1);
    }

    function test_nonPositivePrice() public {
        ethFeed.setAnswer(0);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, address(ethFeed), int256(0)));
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(PAYEE, 1, ""), HASH);
        ethFeed.setAnswer(-3000e8);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, address(ethFeed), int256(-3000e8)));
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(PAYEE, 1, ""), HASH);
    }

    function test_unpricedNative() public {
        bytes memory t = abi.encode(LIMIT, MAX_AGE, tokenFeedsOnly());
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.UnpricedAsset.selector, address(0)));
        vm.prank(MANAGER);
        _hook(t, SINGLE, single(PAYEE, 1, ""), HASH);
    }

    function test_priceMovesChangeTheValue() public {
        wethFeed.setAnswer(6000e8);
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(weth), 0, transferCall(0.1 ether)), HASH);
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), 600e6);
    }

    // ------------------------------------------------------------------ terms

    function test_getTermsInfo() public view {
        (uint256 limit, uint32 age, TokenFeed[] memory f) = enforcer.getTermsInfo(terms);
        assertEq(limit, LIMIT);
        assertEq(uint256(age), MAX_AGE);
        assertEq(f.length, 4);
        assertEq(f[1].token, address(usdc));
        assertEq(uint256(f[1].decimals), 6);
        assertEq(f[1].feed, address(usdcFeed));
    }

    function test_invalidTermsLength() public {
        bytes memory bad = bytes.concat(terms, hex"00");
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTermsLength.selector, bad.length));
        enforcer.getTermsInfo(bad);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTermsLength.selector, bad.length));
        vm.prank(MANAGER);
        _hook(bad, SINGLE, single(address(usdc), 0, transferCall(1)), HASH);
        bytes memory packed = abi.encodePacked(LIMIT);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTermsLength.selector, uint256(32)));
        enforcer.getTermsInfo(packed);
    }

    function test_dirtyTermsRevert() public {
        // canonical length, but maxPriceAge does not fit uint32: abi.decode refuses it
        bytes memory dirty = abi.encode(LIMIT, uint256(1) << 40, allFeeds());
        vm.expectRevert();
        enforcer.getTermsInfo(dirty);
    }

    function test_invalidTokenFeed() public {
        TokenFeed[] memory f = allFeeds();
        f[0].decimals = 8;
        bytes memory t = abi.encode(LIMIT, MAX_AGE, f);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTokenFeed.selector, 0, address(0), uint8(8), address(ethFeed)));
        vm.prank(MANAGER);
        _hook(t, SINGLE, single(address(usdc), 0, transferCall(1)), HASH);
    }

    function test_zeroLimitAllowsOnlyFreeCalls() public {
        bytes memory t = abi.encode(uint256(0), MAX_AGE, allFeeds());
        vm.prank(MANAGER);
        _hook(t, SINGLE, single(address(usdc), 0, approveCall(0)), HASH);
        vm.expectRevert(abi.encodeWithSelector(DailySpendLimitEnforcer.DailySpendLimitExceeded.selector, day0, 0, 1, 0));
        vm.prank(MANAGER);
        _hook(t, SINGLE, single(address(usdc), 0, transferCall(1)), HASH);
    }

    // ------------------------------------------------------------------ views

    function test_valueOfPreview() public view {
        assertEq(enforcer.valueOf(terms, SINGLE, single(PAYEE, 1 ether, "")), 3000e6);
        Execution[] memory e =
            execs(Execution(address(usdc), 0, transferCall(1e6)), Execution(address(dai), 0, approveCall(1e18)));
        assertEq(enforcer.valueOf(terms, BATCH, batch(e)), 2e6);
    }

    function test_otherHooksAreNoOps() public {
        vm.startPrank(MANAGER);
        enforcer.beforeAllHook(terms, "", SINGLE, single(PAYEE, 100 ether, ""), HASH, DELEGATOR, REDEEMER);
        enforcer.afterHook(terms, "", SINGLE, single(PAYEE, 100 ether, ""), HASH, DELEGATOR, REDEEMER);
        enforcer.afterAllHook(terms, "", SINGLE, single(PAYEE, 100 ether, ""), HASH, DELEGATOR, REDEEMER);
        vm.stopPrank();
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), 0);
    }

    // ------------------------------------------------------------------ fuzz

    /// Any sequence of USDC spends within one day: recorded total never passes the limit, and each call
    /// passes exactly when it fits.
    function testFuzz_spendSequenceNeverExceedsLimit(
        uint256[8] memory amounts
    ) public {
        uint256 model;
        for (uint256 i; i < amounts.length; ++i) {
            uint256 a = bound(amounts[i], 0, 600e6);
            if (model + a > LIMIT) {
                vm.expectRevert(_exceeded(day0, model, a));
                _spend(a);
            } else {
                _spend(a);
                model += a;
            }
            assertEq(enforcer.spentOn(MANAGER, HASH, day0), model);
            assertLe(model, LIMIT);
        }
    }

    function testFuzz_valuationMatchesReference(
        uint256 wei_,
        uint256 ethPrice,
        uint256 daiAmount,
        uint256 daiPrice
    ) public {
        wei_ = bound(wei_, 0, 1e24);
        ethPrice = bound(ethPrice, 1, 1e13);
        daiAmount = bound(daiAmount, 0, 1e24);
        daiPrice = bound(daiPrice, 1, 1e21);
        ethFeed.setAnswer(int256(ethPrice));
        daiFeed.setAnswer(int256(daiPrice));
        bytes memory t = abi.encode(type(uint256).max, MAX_AGE, allFeeds());
        Execution[] memory e = execs(Execution(PAYEE, wei_, ""), Execution(address(dai), 0, transferCall(daiAmount)));
        uint256 expected = refUsd(wei_, ethPrice, 18, 8) + refUsd(daiAmount, daiPrice, 18, 18);
        assertEq(enforcer.valueOf(t, BATCH, batch(e)), expected);
        vm.prank(MANAGER);
        _hook(t, BATCH, batch(e), HASH);
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), expected);
    }

    function testFuzz_boundary(
        uint256 limit,
        uint256 spend
    ) public {
        limit = bound(limit, 0, 1e15);
        spend = bound(spend, 0, 2e15);
        bytes memory t = abi.encode(limit, MAX_AGE, allFeeds());
        vm.prank(MANAGER);
        if (spend > limit) {
            vm.expectRevert(
                abi.encodeWithSelector(DailySpendLimitEnforcer.DailySpendLimitExceeded.selector, day0, 0, spend, limit)
            );
        }
        _hook(t, SINGLE, single(address(usdc), 0, transferCall(spend)), HASH);
        assertEq(enforcer.spentOn(MANAGER, HASH, day0), spend > limit ? 0 : spend);
    }
}

/// On an L2 the enforcer is deployed with the chain's sequencer uptime feed: no price is used while the
/// sequencer is down or within the grace period after it returns, and nothing is recorded.
contract DailySpendLimitSequencerTest is PricedAssetsTest {
    DailySpendLimitEnforcer enforcer;
    MockPriceFeed uptime; // answer 0 = up, 1 = down; startedAt = when the status last changed
    uint256 constant GRACE = 3600;
    bytes terms;

    function setUp() public {
        setUpAssets();
        uptime = new MockPriceFeed(0, 0, "L2 Sequencer Uptime");
        uptime.setRoundData(0, T0 - 2 days); // up for two days
        enforcer = new DailySpendLimitEnforcer(address(uptime), GRACE);
        terms = abi.encode(uint256(1000e6), MAX_AGE, allFeeds());
    }

    function _spend(
        uint256 usdcAmount
    ) internal {
        vm.prank(MANAGER);
        enforcer.beforeHook(terms, "", SINGLE, single(address(usdc), 0, transferCall(usdcAmount)), HASH, DELEGATOR, REDEEMER);
    }

    function test_constructorKeepsTheFeedAndGrace() public view {
        assertEq(enforcer.sequencerUptimeFeed(), address(uptime));
        assertEq(enforcer.sequencerGracePeriod(), GRACE);
    }

    function test_upPastTheGracePeriodPasses() public {
        _spend(100e6);
        assertEq(enforcer.spentOn(MANAGER, HASH, T0 / 1 days), 100e6);
    }

    function test_downIsRefusedAndRecordsNothing() public {
        uptime.setRoundData(1, T0 - 60);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.SequencerDown.selector, address(uptime), T0 - 60));
        _spend(100e6);
        assertEq(enforcer.spentOn(MANAGER, HASH, T0 / 1 days), 0);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.SequencerDown.selector, address(uptime), T0 - 60));
        enforcer.valueOf(terms, SINGLE, single(address(usdc), 0, transferCall(1)));
    }

    function test_withinTheGracePeriodIsRefusedUpToItsLastSecond() public {
        uptime.setRoundData(0, T0 - GRACE); // back up exactly GRACE seconds ago: still inside
        vm.expectRevert(
            abi.encodeWithSelector(UsdValuation.SequencerGracePeriodNotOver.selector, address(uptime), T0 - GRACE, GRACE)
        );
        _spend(100e6);
        vm.warp(T0 + 1);
        usdcFeed.setAnswer(1e8);
        _spend(100e6);
    }

    function test_aRoundThatNeverStartedIsRefused() public {
        uptime.setRoundData(0, 0);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.SequencerGracePeriodNotOver.selector, address(uptime), 0, GRACE));
        _spend(100e6);
    }

    function test_aRedemptionWorthNothingNeedsNoSequencer() public {
        uptime.setRoundData(1, T0 - 60);
        vm.prank(MANAGER);
        enforcer.beforeHook(terms, "", SINGLE, single(PAYEE, 0, ""), HASH, DELEGATOR, REDEEMER);
    }

    /// Any status and change time: passes exactly when up for longer than the grace period.
    function testFuzz_passesOnlyWhenUpPastTheGrace(
        int256 status,
        uint256 changedAt
    ) public {
        status = status % 3;
        changedAt = bound(changedAt, 0, T0 + 1 days);
        uptime.setRoundData(status, changedAt);
        bool ok = status == 0 && changedAt != 0 && T0 > changedAt + GRACE;
        if (!ok) vm.expectRevert();
        _spend(1e6);
    }
}
