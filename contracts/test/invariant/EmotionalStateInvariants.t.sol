// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { EmotionalStateHandler } from "./EmotionalStateHandler.sol";

/// EmotionalState under random PAD reports and redemptions with random restricted lists and bounds: no
/// restricted call passes while the Golem's vector is outside the bounds, unrestricted calls always pass,
/// and every outcome is the model's.
contract EmotionalStateInvariants is Test {
    EmotionalStateHandler handler;

    function setUp() public {
        handler = new EmotionalStateHandler();
        bytes4[] memory selectors = new bytes4[](6);
        selectors[0] = handler.redeem.selector;
        selectors[1] = handler.redeem.selector; // random redemptions twice as likely as each other action
        selectors[2] = handler.redeemAtBounds.selector;
        selectors[3] = handler.feel.selector;
        selectors[4] = handler.feel.selector;
        selectors[5] = handler.redeemAtBounds.selector;
        targetSelector(FuzzSelector(address(handler), selectors));
        targetContract(address(handler));
    }

    /// No redemption with a restricted selector passed while pleasure < minPleasure, arousal > maxArousal
    /// or dominance < minDominance (the model's copy of the vector), and the oracle's vectors are the
    /// model's (out-of-range reports refused).
    function invariant_noRestrictedCallOutsideThePADBounds() public view {
        assertEq(handler.restrictedPassedOutOfBounds(), 0, "a restricted call passed outside the PAD bounds");
        for (uint256 i; i < 4; ++i) {
            address golem = handler.golems(i);
            (int8 p, int8 a, int8 d) = handler.oracle().getPAD(golem);
            (int8 gp, int8 ga, int8 gd) = handler.ghost(golem);
            assertTrue(p == gp && a == ga && d == gd, "oracle vector != model");
        }
    }

    /// Every redemption and report passed or was refused (with the exact error data) as the model says.
    function invariant_everyOutcomeAsModelled() public view {
        if (handler.mismatches() != 0) fail(handler.lastMismatch());
    }
}

/// The handler must reach every outcome, or the invariants above prove little: a fixed pseudo-random walk
/// through the same actions, then counts per outcome.
contract EmotionalStateHandlerCoverage is Test {
    function test_handlerReachesEveryOutcome() public {
        EmotionalStateHandler h = new EmotionalStateHandler();
        for (uint256 i; i < 600; ++i) {
            uint256 r = uint256(keccak256(abi.encode("walk", i)));
            uint256 action = r % 6;
            if (action < 3) h.redeem(r >> 8);
            else if (action == 3) h.redeemAtBounds(r >> 8);
            else h.feel(r >> 8, r >> 16);
        }
        assertEq(h.mismatches(), 0, h.lastMismatch());
        assertGt(h.accepted(), 100, "accepted");
        assertGt(h.acceptedRestricted(), 20, "restricted call accepted within the bounds");
        assertGt(h.acceptedFreeOutOfBounds(), 10, "only free calls, out of bounds: accepted");
        assertGt(h.acceptedEmptyList(), 10, "empty restricted list");
        assertGt(h.acceptedTryMode(), 10, "accepted in try-mode");
        assertGt(h.acceptedAtBound(), 10, "accepted exactly on a bound");
        assertGt(h.refusedOnePast(), 10, "refused one past a bound");
        assertGt(h.refusedPleasure(), 5, "refused on pleasure");
        assertGt(h.refusedArousal(), 5, "refused on arousal");
        assertGt(h.refusedDominance(), 5, "refused on dominance");
        assertGt(h.refusedBadTerms(), 3, "refused a non-canonical terms head");
        assertGt(h.refusedCallType(), 2, "refused an unsupported call type");
        assertGt(h.padRefused(), 3, "out-of-range reports refused by the oracle");
    }
}
