// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PricedAssetsTest } from "./helpers/PricedAssetsTest.sol";
import { Execution, ExecutionLib } from "../src/libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../src/libraries/UsdValuation.sol";
import { ReplicantBudgetEnforcer } from "../src/enforcers/ReplicantBudgetEnforcer.sol";
import { MockPriceFeed } from "../src/test-assets/MockPriceFeed.sol";

contract ReplicantBudgetEnforcerTest is PricedAssetsTest {
    event ReplicantActivated(
        address indexed delegationManager, bytes32 indexed delegationHash, uint256 activatedAt, uint256 expiresAt
    );
    event ReplicantSpend(
        address indexed delegationManager,
        bytes32 indexed delegationHash,
        uint256 amountUsd,
        uint256 spentUsd,
        uint256 maxBudgetUsd
    );

    ReplicantBudgetEnforcer enforcer;
    uint256 constant BUDGET = 500e6; // $500 for life
    uint64 constant LIFESPAN = 7 days;
    bytes terms;

    function setUp() public {
        setUpAssets();
        enforcer = new ReplicantBudgetEnforcer(address(0), 0);
        terms = abi.encode(BUDGET, LIFESPAN, MAX_AGE, allFeeds());
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

    function _warp(
        uint256 t
    ) internal {
        vm.warp(t);
        usdcFeed.setAnswer(1e8); // keep the price fresh across the warp
    }

    function _state(
        address manager,
        bytes32 hash
    ) internal view returns (uint256 activatedAt, uint256 spent) {
        (uint64 a, uint192 s) = enforcer.replicants(manager, hash);
        return (a, s);
    }

    // ------------------------------------------------------------------ lifespan

    function test_firstRedemptionActivates() public {
        vm.expectEmit(true, true, true, true);
        emit ReplicantActivated(MANAGER, HASH, T0, T0 + LIFESPAN);
        vm.expectEmit(true, true, true, true);
        emit ReplicantSpend(MANAGER, HASH, 100e6, 100e6, BUDGET);
        _spend(100e6);
        (uint256 activatedAt, uint256 spent) = _state(MANAGER, HASH);
        assertEq(activatedAt, T0);
        assertEq(spent, 100e6);
    }

    function test_lifespanStartsAtFirstUseNotAtSigning() public {
        (uint256 usd, uint256 secs) = enforcer.remaining(MANAGER, HASH, terms);
        assertEq(usd, BUDGET);
        assertEq(secs, LIFESPAN, "unused: whole lifespan");
        _warp(T0 + 30 days); // signed long ago, first used now
        _spend(1e6);
        (uint256 activatedAt,) = _state(MANAGER, HASH);
        assertEq(activatedAt, T0 + 30 days);
        (usd, secs) = enforcer.remaining(MANAGER, HASH, terms);
        assertEq(usd, BUDGET - 1e6);
        assertEq(secs, LIFESPAN);
    }

    function test_zeroValueFirstRedemptionActivates() public {
        vm.expectEmit(true, true, true, true);
        emit ReplicantActivated(MANAGER, HASH, T0, T0 + LIFESPAN);
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, approveCall(0)), HASH);
        (uint256 activatedAt, uint256 spent) = _state(MANAGER, HASH);
        assertEq(activatedAt, T0);
        assertEq(spent, 0);
    }

    function test_zeroValueLaterRedemptionWritesNothing() public {
        _spend(1e6);
        vm.recordLogs();
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, approveCall(0)), HASH);
        assertEq(vm.getRecordedLogs().length, 0);
    }

    function test_expiryBoundary() public {
        _spend(1e6);
        _warp(T0 + LIFESPAN); // last usable second
        _spend(1e6);
        (uint256 usd, uint256 secs) = enforcer.remaining(MANAGER, HASH, terms);
        assertEq(usd, BUDGET - 2e6);
        assertEq(secs, 0);
        vm.warp(T0 + LIFESPAN + 1);
        usdcFeed.setAnswer(1e8);
        vm.expectRevert(
            abi.encodeWithSelector(ReplicantBudgetEnforcer.ReplicantExpired.selector, T0 + LIFESPAN + 1, T0 + LIFESPAN)
        );
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, transferCall(1)), HASH);
        (usd, secs) = enforcer.remaining(MANAGER, HASH, terms);
        assertEq(usd, 0, "expired: nothing usable");
        assertEq(secs, 0);
    }

    function test_expiredRefusesEvenFreeCalls() public {
        _spend(1e6);
        vm.warp(T0 + LIFESPAN + 1);
        vm.expectRevert(
            abi.encodeWithSelector(ReplicantBudgetEnforcer.ReplicantExpired.selector, T0 + LIFESPAN + 1, T0 + LIFESPAN)
        );
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, approveCall(0)), HASH);
    }

    function test_zeroLifespanIsOneSecond() public {
        bytes memory t = abi.encode(BUDGET, uint64(0), MAX_AGE, allFeeds());
        vm.startPrank(MANAGER);
        _hook(t, SINGLE, single(address(usdc), 0, transferCall(1)), HASH);
        _hook(t, SINGLE, single(address(usdc), 0, transferCall(1)), HASH);
        vm.warp(T0 + 1);
        vm.expectRevert(abi.encodeWithSelector(ReplicantBudgetEnforcer.ReplicantExpired.selector, T0 + 1, T0));
        _hook(t, SINGLE, single(address(usdc), 0, transferCall(1)), HASH);
        vm.stopPrank();
    }

    function test_failedFirstRedemptionDoesNotActivate() public {
        vm.expectRevert(abi.encodeWithSelector(ReplicantBudgetEnforcer.ReplicantBudgetExceeded.selector, 0, BUDGET + 1, BUDGET));
        _spend(BUDGET + 1);
        (uint256 activatedAt,) = _state(MANAGER, HASH);
        assertEq(activatedAt, 0);
    }

    // ------------------------------------------------------------------ budget

    function test_budgetIsCumulativeAcrossDays() public {
        _spend(200e6);
        _warp(T0 + 2 days);
        _spend(200e6);
        _warp(T0 + 4 days);
        _spend(100e6); // exactly the budget
        (, uint256 spent) = _state(MANAGER, HASH);
        assertEq(spent, BUDGET);
        vm.expectRevert(abi.encodeWithSelector(ReplicantBudgetEnforcer.ReplicantBudgetExceeded.selector, BUDGET, 1, BUDGET));
        _spend(1);
    }

    function test_batchWithNativeAndTokens() public {
        Execution[] memory e = execs(
            Execution(PAYEE, 0.05 ether, ""), // $150
            Execution(address(weth), 0, approveCall(0.05 ether)), // $150
            Execution(address(dai), 0, transferCall(200e18)) // $200
        );
        vm.prank(MANAGER);
        _hook(terms, BATCH, batch(e), HASH);
        (, uint256 spent) = _state(MANAGER, HASH);
        assertEq(spent, BUDGET);
    }

    function test_budgetAboveUint192IsCapped() public {
        uint256 huge = uint256(type(uint192).max) + 5;
        bytes memory t = abi.encode(huge, LIFESPAN, MAX_AGE, allFeeds());
        (uint256 usd,) = enforcer.remaining(MANAGER, HASH, t);
        assertEq(usd, type(uint192).max);
        vm.expectRevert(
            abi.encodeWithSelector(ReplicantBudgetEnforcer.ReplicantBudgetExceeded.selector, 0, type(uint256).max, huge)
        );
        vm.prank(MANAGER);
        _hook(t, SINGLE, single(address(usdc), 0, approveCall(type(uint256).max)), HASH);
    }

    function test_twoCaveatsSharingTheSlotNeverUnderflow() public {
        bytes memory big = abi.encode(uint256(5000e6), LIFESPAN, MAX_AGE, allFeeds());
        vm.prank(MANAGER);
        _hook(big, SINGLE, single(address(usdc), 0, transferCall(BUDGET + 1)), HASH);
        vm.expectRevert(abi.encodeWithSelector(ReplicantBudgetEnforcer.ReplicantBudgetExceeded.selector, BUDGET + 1, 1, BUDGET));
        _spend(1);
        (uint256 usd,) = enforcer.remaining(MANAGER, HASH, terms);
        assertEq(usd, 0);
    }

    function test_stateIsolatedByManagerAndHash() public {
        _spend(BUDGET);
        vm.warp(T0 + 1 days);
        usdcFeed.setAnswer(1e8);
        vm.prank(OTHER_MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, transferCall(BUDGET)), HASH);
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(usdc), 0, transferCall(BUDGET)), OTHER_HASH);
        (uint256 a1,) = _state(MANAGER, HASH);
        (uint256 a2,) = _state(OTHER_MANAGER, HASH);
        (uint256 a3,) = _state(MANAGER, OTHER_HASH);
        assertEq(a1, T0);
        assertEq(a2, T0 + 1 days, "own lifespan");
        assertEq(a3, T0 + 1 days);
    }

    // ------------------------------------------------------------------ modes, prices, terms

    function test_rejectsTryMode() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedExecType.selector, bytes1(0x01)));
        vm.prank(MANAGER);
        _hook(terms, SINGLE_TRY, single(address(usdc), 0, transferCall(1)), HASH);
        (uint256 activatedAt,) = _state(MANAGER, HASH);
        assertEq(activatedAt, 0, "try-mode never activates");
    }

    function test_rejectsDelegatecall() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0xff)));
        vm.prank(MANAGER);
        _hook(terms, DELEGATECALL, single(address(usdc), 0, transferCall(1)), HASH);
    }

    function test_stalePrice() public {
        wethFeed.setRoundData(3000e8, T0 - MAX_AGE - 1);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.StalePrice.selector, address(wethFeed), T0 - MAX_AGE - 1, MAX_AGE));
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(weth), 0, transferCall(1)), HASH);
    }

    function test_nonPositivePrice() public {
        daiFeed.setAnswer(-1);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, address(daiFeed), int256(-1)));
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(address(dai), 0, transferCall(1)), HASH);
    }

    function test_unpricedNative() public {
        bytes memory t = abi.encode(BUDGET, LIFESPAN, MAX_AGE, tokenFeedsOnly());
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.UnpricedAsset.selector, address(0)));
        vm.prank(MANAGER);
        _hook(t, SINGLE, single(PAYEE, 1 wei, ""), HASH);
    }

    function test_roundsUp() public {
        vm.prank(MANAGER);
        _hook(terms, SINGLE, single(PAYEE, 1 wei, ""), HASH);
        (, uint256 spent) = _state(MANAGER, HASH);
        assertEq(spent, 1);
    }

    function test_getTermsInfo() public view {
        (uint256 budget, uint64 lifespan, uint32 age, TokenFeed[] memory f) = enforcer.getTermsInfo(terms);
        assertEq(budget, BUDGET);
        assertEq(uint256(lifespan), LIFESPAN);
        assertEq(uint256(age), MAX_AGE);
        assertEq(f.length, 4);
        assertEq(f[3].feed, address(daiFeed));
    }

    function test_invalidTerms() public {
        bytes memory daily = abi.encode(BUDGET, MAX_AGE, allFeeds()); // DailySpendLimit layout: wrong head
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTermsLength.selector, daily.length));
        enforcer.getTermsInfo(daily);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTermsLength.selector, daily.length));
        vm.prank(MANAGER);
        _hook(daily, SINGLE, single(address(usdc), 0, transferCall(1)), HASH);
        TokenFeed[] memory f = allFeeds();
        f[1].feed = address(0);
        bytes memory t = abi.encode(BUDGET, LIFESPAN, MAX_AGE, f);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTokenFeed.selector, 1, address(usdc), uint8(6), address(0)));
        enforcer.getTermsInfo(t);
    }

    // ------------------------------------------------------------------ fuzz

    function testFuzz_lifetimeSpendNeverExceedsBudget(
        uint256[10] memory amounts,
        uint256[10] memory gaps
    ) public {
        uint256 model;
        uint256 activatedAt;
        for (uint256 i; i < amounts.length; ++i) {
            vm.warp(block.timestamp + bound(gaps[i], 0, 2 days));
            uint256 a = bound(amounts[i], 0, 200e6);
            usdcFeed.setAnswer(1e8);
            bool expired = activatedAt != 0 && block.timestamp > activatedAt + LIFESPAN;
            if (expired) {
                vm.expectRevert(
                    abi.encodeWithSelector(
                        ReplicantBudgetEnforcer.ReplicantExpired.selector, block.timestamp, activatedAt + LIFESPAN
                    )
                );
            } else if (model + a > BUDGET) {
                vm.expectRevert(
                    abi.encodeWithSelector(ReplicantBudgetEnforcer.ReplicantBudgetExceeded.selector, model, a, BUDGET)
                );
            }
            vm.prank(MANAGER);
            _hook(terms, SINGLE, single(address(usdc), 0, transferCall(a)), HASH);
            if (!expired && model + a <= BUDGET) {
                model += a;
                if (activatedAt == 0) activatedAt = block.timestamp;
            }
            (uint256 act, uint256 spent) = _state(MANAGER, HASH);
            assertEq(spent, model);
            assertEq(act, activatedAt);
            assertLe(spent, BUDGET);
        }
    }

    function testFuzz_valuationMatchesReference(
        uint256 amount,
        uint256 price
    ) public {
        amount = bound(amount, 0, 1e30);
        price = bound(price, 1, 1e14);
        wethFeed.setAnswer(int256(price));
        bytes memory t = abi.encode(type(uint256).max, LIFESPAN, MAX_AGE, allFeeds());
        vm.prank(MANAGER);
        _hook(t, SINGLE, single(address(weth), 0, transferFromCall(amount)), HASH);
        (, uint256 spent) = _state(MANAGER, HASH);
        assertEq(spent, refUsd(amount, price, 18, 8));
    }
}

/// ReplicantBudget on an L2: no spend is priced while the sequencer is down or in its grace period, and a
/// refused first redemption does not start the lifespan.
contract ReplicantBudgetSequencerTest is PricedAssetsTest {
    ReplicantBudgetEnforcer enforcer;
    MockPriceFeed uptime;
    uint256 constant GRACE = 3600;
    bytes terms;

    function setUp() public {
        setUpAssets();
        uptime = new MockPriceFeed(0, 0, "L2 Sequencer Uptime");
        uptime.setRoundData(0, T0 - 2 days);
        enforcer = new ReplicantBudgetEnforcer(address(uptime), GRACE);
        terms = abi.encode(uint256(500e6), uint64(7 days), MAX_AGE, allFeeds());
    }

    function _spend(
        uint256 usdcAmount
    ) internal {
        vm.prank(MANAGER);
        enforcer.beforeHook(terms, "", SINGLE, single(address(usdc), 0, transferCall(usdcAmount)), HASH, DELEGATOR, REDEEMER);
    }

    function test_refusedWhileDownOrInGrace_passesAfter() public {
        uptime.setRoundData(1, T0 - 10);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.SequencerDown.selector, address(uptime), T0 - 10));
        _spend(100e6);
        (uint64 activatedAt,) = enforcer.replicants(MANAGER, HASH);
        assertEq(uint256(activatedAt), 0, "a refused redemption does not start the lifespan");
        uptime.setRoundData(0, T0 - 10);
        vm.expectRevert(
            abi.encodeWithSelector(UsdValuation.SequencerGracePeriodNotOver.selector, address(uptime), T0 - 10, GRACE)
        );
        _spend(100e6);
        vm.warp(T0 + GRACE);
        usdcFeed.setAnswer(1e8);
        _spend(100e6);
        (, uint192 spent) = enforcer.replicants(MANAGER, HASH);
        assertEq(uint256(spent), 100e6);
    }
}
