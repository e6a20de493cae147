// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { VaultNAVHandler } from "./VaultNAVHandler.sol";

/// VaultNAV is a per-transaction circuit breaker: under random redemptions (every counted and uncounted
/// call shape, single and batch, try-mode) and random transactions of up to forty redemptions, while the
/// vault's share price and size move at random, no accepted redemption and no accepted transaction moves
/// more than maxNavBps of the vault's total assets as the transaction found it, and every outcome is the
/// model's. Each handler call is one transaction, so the enforcer's transient running total starts at
/// zero for each.
contract VaultNAVInvariants is Test {
    VaultNAVHandler handler;

    function setUp() public {
        handler = new VaultNAVHandler();
        bytes4[] memory selectors = new bytes4[](11);
        selectors[0] = handler.redeem.selector;
        selectors[1] = handler.redeem.selector; // random redemptions three times as likely as each other action
        selectors[2] = handler.redeem.selector;
        selectors[3] = handler.redeemAtCap.selector;
        selectors[4] = handler.redeemAtCap.selector;
        selectors[5] = handler.deposit.selector;
        selectors[6] = handler.exit.selector;
        selectors[7] = handler.donate.selector;
        selectors[8] = handler.loss.selector;
        selectors[9] = handler.redeemMany.selector;
        selectors[10] = handler.redeemMany.selector;
        targetSelector(FuzzSelector(address(handler), selectors));
        targetContract(address(handler));
    }

    /// No accepted redemption moved more than floor(totalAssets * maxNavBps / 10000) asset units (the
    /// model's sum against the model's cap), and the enforcer's maxActionAssets view gives that cap now.
    function invariant_noRedemptionMovesMoreThanTheCap() public view {
        assertEq(handler.exceedingAccepted(), 0, "a redemption over the NAV cap was accepted");
        uint256 total = handler.usdc().balanceOf(address(handler.vault()));
        uint16[3] memory bps = [uint16(1), 1000, 10_000];
        for (uint256 i; i < bps.length; ++i) {
            bytes memory terms = abi.encode(address(handler.vault()), bps[i]);
            assertEq(handler.enforcer().maxActionAssets(terms), total * bps[i] / 10_000, "maxActionAssets");
        }
    }

    /// No transaction of many redemptions moved more than the cap of the vault it found.
    function invariant_noTransactionMovesMoreThanTheCap() public view {
        assertEq(handler.transactionsOverCap(), 0, "a transaction over the NAV cap was accepted");
    }

    /// Every redemption passed or was refused (with the exact error data) as the model says.
    function invariant_everyOutcomeAsModelled() public view {
        if (handler.mismatches() != 0) fail(handler.lastMismatch());
    }
}

/// The handler must reach every outcome, or the invariants above prove little: a fixed pseudo-random walk
/// through the same actions, then counts per outcome. Each handler call is its own transaction (isolate),
/// as in the invariant run.
/// forge-config: default.isolate = true
contract VaultNAVHandlerCoverage is Test {
    function test_handlerReachesEveryOutcome() public {
        VaultNAVHandler h = new VaultNAVHandler();
        for (uint256 i; i < 800; ++i) {
            uint256 r = uint256(keccak256(abi.encode("walk", i)));
            uint256 action = r % 9;
            if (action == 8) h.redeemMany(r >> 8);
            else if (action < 3) h.redeem(r >> 8);
            else if (action == 3) h.redeemAtCap(r >> 8);
            else if (action == 4) h.deposit(r >> 8);
            else if (action == 5) h.donate(r >> 8);
            else if (action == 6 && (r >> 8) % 4 == 0) h.exit(r >> 16);
            else if (action == 7 && (r >> 8) % 4 == 0) h.loss(r >> 16);
        }
        assertEq(h.mismatches(), 0, h.lastMismatch());
        assertGt(h.accepted(), 100, "accepted");
        assertGt(h.acceptedMoving(), 50, "accepted with assets moving");
        assertGt(h.acceptedTryMode(), 10, "accepted in try-mode");
        assertGt(h.acceptedAtCap(), 5, "accepted exactly at the cap");
        if (h.approveToVaultIsFree()) assertGt(h.acceptedApproveAndDeposit(), 1, "approve(vault) + deposit at the cap");
        else assertEq(h.acceptedApproveAndDeposit(), 0, "approve(vault) + deposit counted twice, never at the cap");
        assertGt(h.refusedOverCap(), 50, "refused over the cap");
        assertGt(h.refusedOneOver(), 5, "refused one unit over the cap");
        assertGt(h.refusedEmptyVault(), 0, "refused by an empty vault");
        assertGt(h.refusedUnlimited(), 5, "refused an unlimited amount");
        assertGt(h.refusedVaultView(), 0, "a vault view reverted and bubbled up");
        assertGt(h.refusedBadTerms(), 5, "refused bad terms");
        assertGt(h.refusedCallType(), 2, "refused an unsupported call type");
        assertGt(h.transactionsAccepted(), 5, "multi-redemption transactions accepted");
        assertGt(h.transactionsRefusedLater(), 5, "refused a redemption only because of the ones before it");
    }
}
