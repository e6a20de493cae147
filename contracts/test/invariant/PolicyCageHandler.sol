// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { PolicyCage } from "../../src/oracles/PolicyCage.sol";
import { VitalityOracle } from "../../src/oracles/VitalityOracle.sol";

/// Random register / kill / set-by-owner / set-by-stranger sequences over a few Golem keys, with a model
/// of what each key's constitution hash must read.
contract PolicyCageHandler is Test {
    PolicyCage internal immutable cage;
    VitalityOracle internal immutable oracle;
    address internal immutable owner;

    address[] public keys;
    mapping(address key => bytes32 hash) public ghostHash;
    uint256 public strangerWrites;
    uint256 public ownerWritesRefused;

    constructor(
        PolicyCage cage_,
        VitalityOracle oracle_,
        address owner_
    ) {
        cage = cage_;
        oracle = oracle_;
        owner = owner_;
        for (uint256 i; i < 4; ++i) {
            keys.push(address(uint160(0x7000 + i)));
        }
    }

    function keyCount() external view returns (uint256) {
        return keys.length;
    }

    function register(
        uint256 i
    ) external {
        address key = keys[i % keys.length];
        vm.prank(owner);
        try oracle.registerGolem(key) { } catch { }
    }

    function kill(
        uint256 i
    ) external {
        address key = keys[i % keys.length];
        vm.prank(owner);
        try oracle.deregisterGolem(key) { } catch { }
    }

    function set(
        uint256 i,
        bytes32 h
    ) external {
        address key = keys[i % keys.length];
        (bool registered,) = oracle.getPhase(key);
        vm.prank(owner);
        try cage.setConstitution(key, h) {
            ghostHash[key] = h;
        } catch {
            // Only a zero hash or a key the oracle does not hold live may be refused.
            if (h != bytes32(0) && registered) ++ownerWritesRefused;
        }
    }

    function carry(
        uint256 i,
        uint256 j
    ) external {
        address from = keys[i % keys.length];
        address to = keys[j % keys.length];
        vm.prank(owner);
        try cage.carryConstitution(from, to) {
            ghostHash[to] = ghostHash[from];
        } catch { }
    }

    function setAsStranger(
        uint256 i,
        bytes32 h,
        address caller
    ) external {
        if (caller == owner) return;
        address key = keys[i % keys.length];
        vm.prank(caller);
        try cage.setConstitution(key, h) {
            ++strangerWrites;
        } catch { }
        vm.prank(caller);
        try cage.carryConstitution(key, keys[(i + 1) % keys.length]) {
            ++strangerWrites;
        } catch { }
    }
}
