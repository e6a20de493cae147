// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { DailySpendLimitEnforcer } from "../../src/enforcers/DailySpendLimitEnforcer.sol";
import { ReplicantBudgetEnforcer } from "../../src/enforcers/ReplicantBudgetEnforcer.sol";
import { DailySpendHandler, ReplicantBudgetHandler } from "./SpendHandlers.sol";

/// Cumulative spend never exceeds its cap: DailySpendLimit per UTC day and per (manager, delegation),
/// under random native / transfer / transferFrom / approve redemptions (single and batch, some in
/// try-mode) at random prices and times, including stale and non-positive prices.
contract DailySpendInvariants is Test {
    DailySpendLimitEnforcer enforcer;
    DailySpendHandler handler;

    function setUp() public {
        enforcer = new DailySpendLimitEnforcer(address(0), 0);
        handler = new DailySpendHandler(enforcer);
        bytes4[] memory selectors = new bytes4[](8);
        selectors[0] = handler.redeem.selector;
        selectors[1] = handler.redeem.selector; // random redemptions twice as likely as each other action
        selectors[2] = handler.redeemRemaining.selector;
        selectors[3] = handler.warp.selector;
        selectors[4] = handler.warpToDayEnd.selector;
        selectors[5] = handler.setPrice.selector;
        selectors[6] = handler.makeStale.selector;
        selectors[7] = handler.refreshPrices.selector;
        targetSelector(FuzzSelector(address(handler), selectors));
        targetContract(address(handler));
    }

    /// The sum of accepted spend on every (manager, delegation, day) ever written is at most the daily
    /// limit (the model sums what the enforcer accepted; the handler checks the model against the
    /// enforcer's state after every call), and today's recorded spend is at most the limit.
    function invariant_dailySpendNeverExceedsLimit() public view {
        uint256 n = handler.touchedCount();
        for (uint256 i; i < n; ++i) {
            (address manager, bytes32 hash, uint256 day) = handler.touched(i);
            assertLe(handler.modelSpent(manager, hash, day), handler.LIMIT(), "sum of accepted spend > limit");
        }
        uint256 today = block.timestamp / 1 days;
        for (uint256 k; k < 2 * handler.hashCount(); ++k) {
            (address manager, bytes32 hash) = handler.keyOf(k);
            assertLe(enforcer.spentOn(manager, hash, today), handler.LIMIT(), "spent today > limit");
        }
    }

    /// The enforcer's state for today is exactly the sum of the redemptions it accepted today.
    function invariant_stateMatchesAcceptedRedemptions() public view {
        uint256 today = block.timestamp / 1 days;
        for (uint256 k; k < 2 * handler.hashCount(); ++k) {
            (address manager, bytes32 hash) = handler.keyOf(k);
            assertEq(enforcer.spentOn(manager, hash, today), handler.modelSpent(manager, hash, today), "state != model");
        }
    }

    /// Every call that would exceed the limit reverted (with the numbers), every stale or non-positive price
    /// and every try-mode call reverted, and every valid call passed.
    function invariant_everyOutcomeAsModelled() public view {
        assertEq(handler.exceedingAccepted(), 0, "a redemption over the limit was accepted");
        if (handler.mismatches() != 0) fail(handler.lastMismatch());
    }
}

/// Cumulative spend never exceeds its cap: ReplicantBudget over the delegation's lifetime, and nothing is
/// accepted after the lifespan that started at the first redemption.
contract ReplicantBudgetInvariants is Test {
    ReplicantBudgetEnforcer enforcer;
    ReplicantBudgetHandler handler;

    function setUp() public {
        enforcer = new ReplicantBudgetEnforcer(address(0), 0);
        handler = new ReplicantBudgetHandler(enforcer);
        bytes4[] memory selectors = new bytes4[](8);
        selectors[0] = handler.redeem.selector;
        selectors[1] = handler.redeem.selector; // random redemptions twice as likely as each other action
        selectors[2] = handler.redeemRemaining.selector;
        selectors[3] = handler.warp.selector;
        selectors[4] = handler.redeemAtExpiry.selector;
        selectors[5] = handler.setPrice.selector;
        selectors[6] = handler.makeStale.selector;
        selectors[7] = handler.refreshPrices.selector;
        targetSelector(FuzzSelector(address(handler), selectors));
        targetContract(address(handler));
    }

    function invariant_lifetimeSpendNeverExceedsBudget() public view {
        for (uint256 i; i < 2 * handler.hashCount(); ++i) {
            (address manager, bytes32 hash) = handler.keyOf(i);
            (uint64 activatedAt, uint192 spent) = enforcer.replicants(manager, hash);
            assertLe(spent, handler.BUDGET(), "spent > budget");
            assertEq(spent, handler.modelSpent(manager, hash), "state != model");
            assertEq(activatedAt, handler.modelActivatedAt(manager, hash), "activation != model");
            (uint256 remainingUsd,) = enforcer.remaining(manager, hash, handler.terms());
            if (activatedAt == 0 || block.timestamp <= activatedAt + handler.LIFESPAN()) {
                assertEq(remainingUsd + spent, handler.BUDGET(), "remaining + spent != budget");
            } else {
                assertEq(remainingUsd, 0, "expired but budget reported");
            }
        }
    }

    function invariant_everyOutcomeAsModelled() public view {
        assertEq(handler.exceedingAccepted(), 0, "a redemption over the budget was accepted");
        assertEq(handler.spentAfterExpiry(), 0, "spend after expiry");
        if (handler.mismatches() != 0) fail(handler.lastMismatch());
    }
}

/// The handlers must actually reach every outcome, or the invariants above prove little: a fixed
/// pseudo-random walk through the same actions, then counts per outcome.
contract SpendHandlerCoverage is Test {
    function _walk(
        address h,
        uint256 steps,
        bool daily
    ) internal {
        for (uint256 i; i < steps; ++i) {
            uint256 r = uint256(keccak256(abi.encode("walk", i)));
            uint256 action = r % 8;
            if (action < 3) DailySpendHandler(h).redeem(r >> 8, r >> 16);
            else if (action == 3) DailySpendHandler(h).redeemRemaining(r >> 8, r >> 16);
            // Replicants: short warps only, so they live long enough to hit their budget
            else if (action == 4) DailySpendHandler(h).warp(daily ? r >> 8 : (r >> 8) | 1);
            else if (action == 5) DailySpendHandler(h).setPrice(r >> 8, r >> 16);
            else if (action == 6 && r % 16 < 8) DailySpendHandler(h).makeStale(r >> 8, r >> 16);
            else if (action == 6) DailySpendHandler(h).refreshPrices();
            else if (daily) DailySpendHandler(h).warpToDayEnd(r >> 8);
            else if ((r >> 128) % 32 == 0) ReplicantBudgetHandler(h).redeemAtExpiry(r >> 8, r >> 16);
        }
    }

    function test_dailyHandlerReachesEveryOutcome() public {
        DailySpendHandler h = new DailySpendHandler(new DailySpendLimitEnforcer(address(0), 0));
        _walk(address(h), 1500, true);
        assertEq(h.mismatches(), 0, h.lastMismatch());
        assertGt(h.accepted(), 50, "accepted");
        assertGt(h.refusedOverCap(), 20, "refused over the cap");
        assertGt(h.refusedPrice(), 20, "refused on price");
        assertGt(h.refusedTryMode(), 5, "refused try-mode");
        assertGt(h.touchedCount(), 5, "days x keys touched");
        assertGt(h.acceptedAtCap(), 3, "accepted exactly at the cap");
        assertGt(h.refusedOneOver(), 3, "refused one micro-dollar over the cap");
    }

    function test_replicantHandlerReachesEveryOutcome() public {
        ReplicantBudgetHandler h = new ReplicantBudgetHandler(new ReplicantBudgetEnforcer(address(0), 0));
        _walk(address(h), 1500, false);
        assertEq(h.mismatches(), 0, h.lastMismatch());
        assertGt(h.accepted(), 20, "accepted");
        assertGt(h.refusedOverCap(), 10, "refused over the budget");
        assertGt(h.refusedPrice(), 20, "refused on price");
        assertGt(h.refusedTryMode(), 5, "refused try-mode");
        assertGt(h.refusedExpired(), 20, "refused after expiry");
        assertGt(h.acceptedAtCap(), 0, "accepted exactly at the budget");
        assertGt(h.refusedOneOver(), 0, "refused one micro-dollar over the budget");
    }

    /// Probes one Replicant at expiresAt - 1, expiresAt and expiresAt + 1 with many random redemptions.
    function test_replicantHandlerProbesTheExpiryBoundary() public {
        ReplicantBudgetHandler h = new ReplicantBudgetHandler(new ReplicantBudgetEnforcer(address(0), 0));
        h.redeemRemaining(0, 0); // activates key 0, spending the whole budget at exactly the cap
        assertEq(h.acceptedAtCap(), 1);
        uint256 acceptedAtExpiry;
        uint256 refusedAfter;
        for (uint256 s; s < 60; ++s) {
            uint256 snap = vm.snapshotState();
            h.redeemAtExpiry(0, s); // s % 3: expiresAt - 1, expiresAt, expiresAt + 1
            assertEq(h.mismatches(), 0, h.lastMismatch());
            acceptedAtExpiry += h.acceptedAtExpiry();
            refusedAfter += h.refusedExpired();
            vm.revertToState(snap);
        }
        assertGt(acceptedAtExpiry, 0, "some redemption accepted at exactly expiresAt");
        assertGt(refusedAfter, 5, "redemptions one second later refused");
    }
}
