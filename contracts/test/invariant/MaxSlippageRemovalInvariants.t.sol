// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { MaxSlippageRemovalHandler } from "./MaxSlippageRemovalHandler.sol";

/// MaxSlippage on liquidity removals under random batches, minimums, pool moves and feed moves: no removal
/// is accepted from a pool priced further from fresh feeds than the cap, and every outcome is the model's.
contract MaxSlippageRemovalInvariants is Test {
    MaxSlippageRemovalHandler handler;

    function setUp() public {
        handler = new MaxSlippageRemovalHandler();
        bytes4[] memory selectors = new bytes4[](8);
        selectors[0] = handler.remove.selector;
        selectors[1] = handler.remove.selector;
        selectors[2] = handler.remove.selector;
        selectors[3] = handler.movePool.selector;
        selectors[4] = handler.setPrice.selector;
        selectors[5] = handler.makeStale.selector;
        selectors[6] = handler.refreshPrices.selector;
        selectors[7] = handler.warp.selector;
        targetSelector(FuzzSelector(address(handler), selectors));
        targetContract(address(handler));
    }

    function invariant_noRemovalAcceptedFromAPoolOffTheFeeds() public view {
        assertEq(handler.offFeedsAccepted(), 0, "a removal from a pool off the feeds was accepted");
    }

    function invariant_everyOutcomeAsModelled() public view {
        if (handler.mismatches() != 0) fail(handler.lastMismatch());
    }
}

/// The handler must reach every outcome: a fixed pseudo-random walk, then counts per outcome.
contract MaxSlippageRemovalHandlerCoverage is Test {
    function test_handlerReachesEveryOutcome() public {
        MaxSlippageRemovalHandler h = new MaxSlippageRemovalHandler();
        for (uint256 i; i < 600; ++i) {
            uint256 r = uint256(keccak256(abi.encode("walk", i)));
            uint256 action = r % 8;
            if (action < 3) h.remove(r >> 8);
            else if (action == 3) h.movePool(r >> 8);
            else if (action == 4) h.setPrice(r % 16 < 8, r >> 16);
            else if (action == 5 && r % 32 < 8) h.makeStale(r % 64 < 32, r >> 16);
            else if (action == 6 || action == 5) h.refreshPrices();
            else h.warp(r >> 8);
        }
        assertEq(h.mismatches(), 0, h.lastMismatch());
        assertGt(h.acceptedRemovals(), 15, "accepted");
        assertGt(h.acceptedWithZeroMinimums(), 5, "accepted with zero minimums");
        assertGt(h.refusedOffFeeds(), 30, "refused off the feeds");
        assertGt(h.refusedAfterOtherCall(), 30, "refused after another call");
        assertGt(h.refusedStale(), 5, "refused a stale price");
    }
}
