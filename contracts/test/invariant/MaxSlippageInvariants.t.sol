// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { MaxSlippageHandler } from "./MaxSlippageHandler.sol";

/// MaxSlippage under random batches of the five decoded swaps, malformed swaps and other calls, at prices
/// that move, go stale and go non-positive: no accepted swap asks less than the feed-implied bound, and
/// every outcome is the model's.
contract MaxSlippageInvariants is Test {
    MaxSlippageHandler handler;

    function setUp() public {
        handler = new MaxSlippageHandler();
        bytes4[] memory selectors = new bytes4[](9);
        selectors[0] = handler.swap.selector;
        selectors[1] = handler.swap.selector; // random redemptions three times as likely as each other action
        selectors[2] = handler.swap.selector;
        selectors[3] = handler.swapAtBound.selector;
        selectors[4] = handler.swapAtBound.selector;
        selectors[5] = handler.warp.selector;
        selectors[6] = handler.setPrice.selector;
        selectors[7] = handler.makeStale.selector;
        selectors[8] = handler.refreshPrices.selector;
        targetSelector(FuzzSelector(address(handler), selectors));
        targetContract(address(handler));
    }

    /// Every swap in every accepted redemption was well-formed, priced by fresh positive feeds of listed
    /// tokens, and its minimum output was at least the lowest the cap allows below the router's fee-free
    /// quote at those feeds.
    function invariant_noSwapAcceptedBelowTheFeedBound() public view {
        assertEq(handler.belowBoundAccepted(), 0, "a swap under the feed-implied bound was accepted");
    }

    /// Every redemption passed or was refused (with the exact error data) as the model says.
    function invariant_everyOutcomeAsModelled() public view {
        if (handler.mismatches() != 0) fail(handler.lastMismatch());
    }
}

/// The handler must reach every outcome, or the invariants above prove little: a fixed pseudo-random walk
/// through the same actions, then counts per outcome.
contract MaxSlippageHandlerCoverage is Test {
    function test_handlerReachesEveryOutcome() public {
        MaxSlippageHandler h = new MaxSlippageHandler();
        for (uint256 i; i < 800; ++i) {
            uint256 r = uint256(keccak256(abi.encode("walk", i)));
            uint256 action = r % 8;
            if (action < 3) h.swap(r >> 8);
            else if (action == 3) h.swapAtBound(r >> 8);
            else if (action == 4) h.warp(r >> 8);
            else if (action == 5) h.setPrice(r >> 8, r >> 16);
            else if (action == 6) h.makeStale(r >> 8, r >> 16);
            else h.refreshPrices();
        }
        assertEq(h.mismatches(), 0, h.lastMismatch());
        assertGt(h.accepted(), 100, "accepted");
        assertGt(h.acceptedSwaps(), 50, "accepted with a swap");
        assertGt(h.acceptedTryMode(), 10, "accepted in try-mode");
        assertGt(h.acceptedAtBound(), 5, "accepted at exactly the lowest allowed minimum output");
        assertGt(h.refusedOneBelowBound(), 5, "refused one unit under it");
        assertGt(h.refusedSlippage(), 50, "refused over the slippage cap");
        assertGt(h.refusedUnpriced(), 10, "refused an unlisted token");
        assertGt(h.refusedStale(), 10, "refused a stale price");
        assertGt(h.refusedInvalidPrice(), 5, "refused a non-positive price");
        assertGt(h.refusedMalformed(), 10, "refused a malformed swap");
        assertGt(h.refusedBadTerms(), 3, "refused bad terms");
        assertGt(h.refusedCallType(), 2, "refused an unsupported call type");
    }
}
