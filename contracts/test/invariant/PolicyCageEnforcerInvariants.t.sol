// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { PolicyCageEnforcerHandler } from "./PolicyCageEnforcerHandler.sol";

/// Under random buys (approved and not), sells, losses, gains and price moves, no redemption the
/// PolicyCageEnforcer accepts leaves an asset it increased above its concentration bound or an
/// unapproved asset increased, and the high-water mark never falls.
contract PolicyCageEnforcerInvariants is Test {
    PolicyCageEnforcerHandler handler;

    function setUp() public {
        handler = new PolicyCageEnforcerHandler();
        bytes4[] memory selectors = new bytes4[](7);
        selectors[0] = handler.buy.selector;
        selectors[1] = handler.buy.selector; // buys twice as likely as anything else
        selectors[2] = handler.sell.selector;
        selectors[3] = handler.loss.selector;
        selectors[4] = handler.gain.selector;
        selectors[5] = handler.movePrice.selector;
        selectors[6] = handler.sell.selector;
        targetSelector(FuzzSelector(address(handler), selectors));
        targetContract(address(handler));
    }

    function invariant_noAcceptedRedemptionBreaksTheConstitution() public view {
        assertEq(handler.violations(), 0, "an accepted redemption left an asset over its bound or an unapproved asset increased");
    }

    function invariant_highWaterMarkNeverFalls() public view {
        assertEq(handler.markFell(), 0, "the high-water mark fell");
    }
}

/// The walk must reach acceptances, refusals and closes, or the invariants prove little.
contract PolicyCageEnforcerCoverage is Test {
    function test_walkReachesEveryOutcome() public {
        PolicyCageEnforcerHandler h = new PolicyCageEnforcerHandler();
        for (uint256 i; i < 120; ++i) {
            uint256 r = uint256(keccak256(abi.encode(i)));
            uint256 k = r % 6;
            if (k < 2) h.buy(r >> 8, r >> 16);
            else if (k == 2) h.sell(r & 256 == 0, r >> 24);
            else if (k == 3) h.loss((r >> 32) % 3000e6);
            else if (k == 4) h.gain(r >> 40);
            else h.movePrice(r >> 48);
        }
        assertGt(h.accepted(), 10, "accepted");
        assertGt(h.refused(), 10, "refused");
        assertGt(h.closes(), 3, "closes");
        assertEq(h.violations(), 0, "violations");
        assertEq(h.markFell(), 0, "mark fell");
    }
}
