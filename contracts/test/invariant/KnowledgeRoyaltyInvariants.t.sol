// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { KnowledgeRoyaltyHandler } from "./KnowledgeRoyaltyHandler.sol";

/// KnowledgeRoyalty under random sales (payments to sellers and the author mixed with calls that must not
/// count, single and batch, cut-off calldata, try-mode): no accepted redemption underpays the author, and
/// every outcome is the model's.
contract KnowledgeRoyaltyInvariants is Test {
    KnowledgeRoyaltyHandler handler;

    function setUp() public {
        handler = new KnowledgeRoyaltyHandler();
        bytes4[] memory selectors = new bytes4[](3);
        selectors[0] = handler.sell.selector;
        selectors[1] = handler.sell.selector; // random sales twice as likely as boundary sales
        selectors[2] = handler.sellAtBoundary.selector;
        targetSelector(FuzzSelector(address(handler), selectors));
        targetContract(address(handler));
    }

    /// No accepted redemption paid the author less than royaltyBps of the other payments in the token
    /// (royalty * 10000 >= paid * bps, summed by the model), and none was accepted in try-mode with a
    /// payment in it.
    function invariant_noAcceptedSaleUnderpaysTheRoyalty() public view {
        assertEq(handler.underpaidAccepted(), 0, "an underpaid sale was accepted");
    }

    /// Every sale passed or was refused (with the exact error data) as the model says.
    function invariant_everyOutcomeAsModelled() public view {
        if (handler.mismatches() != 0) fail(handler.lastMismatch());
    }
}

/// The handler must reach every outcome, or the invariants above prove little: a fixed pseudo-random walk
/// through the same actions, then counts per outcome.
contract KnowledgeRoyaltyHandlerCoverage is Test {
    function test_handlerReachesEveryOutcome() public {
        KnowledgeRoyaltyHandler h = new KnowledgeRoyaltyHandler();
        for (uint256 i; i < 500; ++i) {
            uint256 r = uint256(keccak256(abi.encode("walk", i)));
            if (r % 3 < 2) h.sell(r >> 8);
            else h.sellAtBoundary(r >> 8);
        }
        assertEq(h.mismatches(), 0, h.lastMismatch());
        assertGt(h.accepted(), 100, "accepted");
        assertGt(h.acceptedWithRoyalty(), 30, "accepted a sale with its royalty");
        assertGt(h.acceptedNoSale(), 10, "accepted with nothing paid in the token");
        assertGt(h.acceptedExactRoyalty(), 10, "accepted with exactly the required royalty");
        assertGt(h.refusedUnpaid(), 50, "refused an unpaid royalty");
        assertGt(h.refusedOneShort(), 10, "refused one unit short");
        assertGt(h.refusedTryMode(), 3, "refused try-mode");
        assertGt(h.refusedBadTerms(), 3, "refused bad terms");
        assertGt(h.refusedCallType(), 2, "refused an unsupported call type");
    }
}
