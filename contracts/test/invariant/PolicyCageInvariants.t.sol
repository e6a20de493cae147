// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { PolicyCageHandler } from "./PolicyCageHandler.sol";
import { PolicyCage } from "../../src/oracles/PolicyCage.sol";
import { VitalityOracle } from "../../src/oracles/VitalityOracle.sol";
import { IVitalityOracle } from "../../src/interfaces/IVitalityOracle.sol";

/// Invariants of the PolicyCage under random registrations, deaths and writes: every key reads the last
/// hash the oracle's owner set for it (zero when none), no one else ever writes, the owner's
/// write of a non-zero hash for a live Golem always lands, and no hash is zeroed.
contract PolicyCageInvariantsTest is Test {
    PolicyCageHandler internal handler;
    PolicyCage internal cage;
    address internal constant OWNER = address(0x0A);

    function setUp() public {
        vm.warp(1_700_000_000);
        VitalityOracle oracle = new VitalityOracle(OWNER);
        cage = new PolicyCage(IVitalityOracle(address(oracle)));
        handler = new PolicyCageHandler(cage, oracle, OWNER);
        targetContract(address(handler));
    }

    function invariant_eachKeyReadsTheOwnersLastHash() public view {
        for (uint256 i; i < handler.keyCount(); ++i) {
            address key = handler.keys(i);
            assertEq(cage.constitutionHash(key), handler.ghostHash(key), "hash differs from the owner's last write");
        }
    }

    function invariant_noStrangerEverWrites() public view {
        assertEq(handler.strangerWrites(), 0, "a stranger set a constitution");
    }

    function invariant_theOwnersValidWritesAreNeverRefused() public view {
        assertEq(handler.ownerWritesRefused(), 0, "the owner's write for a live Golem was refused");
    }
}
