// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { HookHandlerBase } from "./HookHandlerBase.sol";
import { Execution, ExecutionLib } from "../../src/libraries/ExecutionLib.sol";
import { EmotionalStateEnforcer } from "../../src/enforcers/EmotionalStateEnforcer.sol";
import { DaimonOracle } from "../../src/oracles/DaimonOracle.sol";
import { IDaimonOracle } from "../../src/interfaces/IDaimonOracle.sol";

/// Golems report random PAD vectors (some out of range, which the oracle must refuse) while redemptions
/// with random restricted-selector lists and bounds go through EmotionalStateEnforcer: single or batch,
/// default or try-mode, restricted and free calls mixed, empty and cut-off calldata, now and then a
/// non-canonical terms head or an unsupported call type. The model keeps its own copy of every vector
/// (what each Golem last reported successfully; neutral if never) and follows docs/contracts.md.
contract EmotionalStateHandler is HookHandlerBase {
    bytes4 internal constant SWAP = 0x04e45aaf;
    bytes4 internal constant DEPOSIT = 0x6e553f65;
    bytes4 internal constant TRANSFER = 0xa9059cbb;
    bytes4 internal constant APPROVE = 0x095ea7b3;
    bytes4 internal constant EMPTY = 0x00000000; // empty calldata
    bytes4 internal constant OTHER = 0xdeadbeef;
    address internal constant TARGET = address(0x7A46E7);
    uint256 internal constant GOLEMS = 4; // the last one never reports: neutral (0, 0, 0)

    EmotionalStateEnforcer public immutable enforcer;
    DaimonOracle public immutable oracle;
    address[GOLEMS] public golems;

    struct PAD {
        int8 p;
        int8 a;
        int8 d;
    }

    mapping(address => PAD) public ghost;

    uint256 public restrictedPassedOutOfBounds; // a restricted call accepted while the vector was out of bounds
    uint256 public acceptedRestricted; // a restricted call accepted within the bounds
    uint256 public acceptedFreeOutOfBounds; // only unrestricted calls, vector out of bounds: must pass
    uint256 public acceptedEmptyList;
    uint256 public acceptedTryMode;
    uint256 public acceptedAtBound; // one component exactly on its bound
    uint256 public refusedOnePast; // one component one past its bound
    uint256 public refusedPleasure;
    uint256 public refusedArousal;
    uint256 public refusedDominance;
    uint256 public refusedBadTerms;
    uint256 public refusedCallType;
    uint256 public padRefused; // out-of-range reports the oracle refused

    struct Terms {
        address golem;
        int8 minP;
        int8 maxA;
        int8 minD;
        bytes4[] restricted;
        bytes terms;
        bytes fault; // a non-canonical head must be refused before anything else
    }

    constructor() {
        oracle = new DaimonOracle();
        enforcer = new EmotionalStateEnforcer(address(oracle));
        for (uint256 i; i < GOLEMS; ++i) {
            // forge-lint: disable-next-line(unsafe-typecast)
            golems[i] = address(uint160(0x601E0 + i));
        }
    }

    // ------------------------------------------------------------------ the oracle

    /// A Golem reports a vector: each component in [-100, 100] (often an extreme), one report in 16 out of
    /// range, which must be refused and change nothing.
    function feel(
        uint256 k,
        uint256 seed
    ) external {
        address golem = golems[k % (GOLEMS - 1)];
        PAD memory v = PAD(_component(seed), _component(seed >> 16), _component(seed >> 32));
        bool outOfRange = (seed >> 48) % 16 == 0;
        if (outOfRange) v.a = [int8(101), -101, 127, -128][(seed >> 52) % 4];
        vm.prank(golem);
        try oracle.setPAD(v.p, v.a, v.d) {
            if (outOfRange) _mismatch("the oracle took an out-of-range vector");
            ghost[golem] = v;
        } catch (bytes memory err) {
            if (!outOfRange) _mismatch("the oracle refused an in-range vector");
            if (keccak256(err) != keccak256(abi.encodeWithSelector(IDaimonOracle.PADOutOfRange.selector, v.p, v.a, v.d))) {
                _mismatch("the oracle refused with the wrong error");
            }
            padRefused++;
        }
        (int8 p, int8 a, int8 d) = oracle.getPAD(golem);
        PAD memory g = ghost[golem];
        if (p != g.p || a != g.a || d != g.d) _mismatch("the oracle's vector != the model's");
    }

    function _component(
        uint256 r
    ) internal pure returns (int8) {
        if (r % 8 == 0) return (r >> 3) % 2 == 0 ? int8(-100) : int8(100);
        return int8(int256(bound(r >> 4, 0, 200)) - 100);
    }

    // ------------------------------------------------------------------ redemptions

    function redeem(
        uint256 seed
    ) external {
        Terms memory t = _terms(seed);
        uint256 n = 1 + (seed >> 40) % 4;
        bool asBatch = n > 1 || (seed >> 44) % 2 == 0;
        Execution[] memory e = new Execution[](n);
        for (uint256 i; i < n; ++i) {
            e[i] = _execution(_rand(seed, i), t.restricted);
        }
        bytes1 callType = asBatch ? BATCH : SINGLE;
        if (t.fault.length == 0 && (seed >> 48) % 24 == 0) callType = (seed >> 56) % 2 == 0 ? bytes1(0xff) : bytes1(0x02);
        _execute(t, _mode(callType, (seed >> 60) % 3 == 0 ? TRY_EXEC : DEFAULT_EXEC), e, asBatch, false);
    }

    /// One restricted call with every bound loose but one, set exactly on the Golem's component (passes) or
    /// one past it (refused).
    function redeemAtBounds(
        uint256 seed
    ) external {
        Terms memory t;
        t.golem = golems[seed % GOLEMS];
        PAD memory v = ghost[t.golem];
        (t.minP, t.maxA, t.minD) = (type(int8).min, type(int8).max, type(int8).min);
        int8 past = int8(int256((seed >> 4) % 2));
        uint256 axis = (seed >> 8) % 3;
        if (axis == 0) t.minP = v.p + past;
        else if (axis == 1) t.maxA = v.a - past;
        else t.minD = v.d + past;
        t.restricted = new bytes4[](1);
        t.restricted[0] = SWAP;
        t.terms = abi.encode(t.golem, t.minP, t.maxA, t.minD, t.restricted);
        Execution[] memory e = new Execution[](1);
        e[0] = Execution(TARGET, 0, abi.encodePacked(SWAP, seed));
        _execute(t, _mode(SINGLE, (seed >> 12) % 3 == 0 ? TRY_EXEC : DEFAULT_EXEC), e, false, true);
    }

    function _execute(
        Terms memory t,
        bytes32 mode,
        Execution[] memory e,
        bool asBatch,
        bool atBounds
    ) internal {
        (bytes memory want, bool restrictedCall, bool outOfBounds) = _model(t, ExecutionLib.callType(mode), e);
        bool ok = _run(address(enforcer), t.terms, mode, _encode(e, asBatch), want);
        if (ok) {
            if (t.fault.length == 0 && restrictedCall && outOfBounds) restrictedPassedOutOfBounds++;
            if (want.length != 0) return;
            if (t.restricted.length == 0) acceptedEmptyList++;
            else if (restrictedCall) acceptedRestricted++;
            else if (outOfBounds) acceptedFreeOutOfBounds++;
            if (ExecutionLib.execType(mode) != DEFAULT_EXEC) acceptedTryMode++;
            if (atBounds) acceptedAtBound++;
            return;
        }
        bytes4 sel = _selector(want);
        if (sel == EmotionalStateEnforcer.EmotionalStateRestriction.selector) {
            PAD memory v = ghost[t.golem];
            if (v.p < t.minP) refusedPleasure++;
            else if (v.a > t.maxA) refusedArousal++;
            else refusedDominance++;
            if (atBounds) refusedOnePast++;
        } else if (sel == ExecutionLib.UnsupportedCallType.selector) {
            refusedCallType++;
        } else if (want.length != 0) {
            refusedBadTerms++;
        }
    }

    // ------------------------------------------------------------------ the model

    /// A bad terms head is refused first. An empty restricted list passes anything. Otherwise only single
    /// and batch call types are understood; the first call (in order) whose selector is listed (empty or
    /// sub-4-byte calldata reads as 0x00000000) is refused with the vector when pleasure < min, arousal >
    /// max or dominance < min; without a listed call everything passes.
    function _model(
        Terms memory t,
        bytes1 callType,
        Execution[] memory e
    ) internal view returns (bytes memory want, bool restrictedCall, bool outOfBounds) {
        PAD memory v = ghost[t.golem];
        outOfBounds = v.p < t.minP || v.a > t.maxA || v.d < t.minD;
        if (t.fault.length != 0) return (t.fault, false, outOfBounds);
        if (t.restricted.length == 0) return ("", false, outOfBounds);
        if (callType != SINGLE && callType != BATCH) {
            return (abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, callType), false, outOfBounds);
        }
        uint256 n = callType == SINGLE ? 1 : e.length;
        for (uint256 i; i < n; ++i) {
            bytes4 sel = _selector(e[i].callData);
            if (!_listed(t.restricted, sel)) continue;
            if (outOfBounds) {
                want = abi.encodeWithSelector(EmotionalStateEnforcer.EmotionalStateRestriction.selector, v.p, v.a, v.d, sel);
            }
            return (want, true, outOfBounds);
        }
    }

    function _listed(
        bytes4[] memory list,
        bytes4 sel
    ) internal pure returns (bool) {
        for (uint256 i; i < list.length; ++i) {
            if (list[i] == sel) return true;
        }
        return false;
    }

    // ------------------------------------------------------------------ generators

    /// A Golem (or the one that never reported), bounds mostly within a few points of its vector (else
    /// anywhere in int8), 0-4 restricted selectors; one call in 24 has a non-canonical head.
    function _terms(
        uint256 seed
    ) internal view returns (Terms memory t) {
        t.golem = golems[seed % GOLEMS];
        PAD memory v = ghost[t.golem];
        t.minP = _near(v.p, seed >> 4);
        t.maxA = _near(v.a, seed >> 12);
        t.minD = _near(v.d, seed >> 20);
        t.restricted = new bytes4[]((seed >> 28) % 5);
        for (uint256 i; i < t.restricted.length; ++i) {
            t.restricted[i] = _pick(_rand(seed, 100 + i));
        }
        t.terms = abi.encode(t.golem, t.minP, t.maxA, t.minD, t.restricted);
        uint256 f = (seed >> 32) % 48;
        if (f == 0) {
            t.terms = abi.encodePacked(t.terms, bytes32(0));
            t.fault = abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsLength.selector, t.terms.length);
        } else if (f == 1) {
            uint256 word = 1 + (seed >> 36) % 3; // minPleasure, maxArousal or minDominance out of int8
            t.terms = _setWord(t.terms, word, (seed >> 38) % 2 == 0 ? uint256(128) : uint256(type(uint256).max - 128));
            t.fault = abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsEncoding.selector, word);
        } else if (f == 2) {
            t.terms = _setWord(t.terms, 4, 0xc0); // the array offset
            t.fault = abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsEncoding.selector, uint256(4));
        } else if (f == 3) {
            t.terms = _setWord(t.terms, 0, uint256(uint160(t.golem)) | (1 << 200)); // dirty golem address
            t.fault = abi.encodeWithSelector(EmotionalStateEnforcer.InvalidTermsEncoding.selector, uint256(0));
        }
    }

    function _near(
        int8 x,
        uint256 r
    ) internal pure returns (int8) {
        // forge-lint: disable-next-line(unsafe-typecast) -- a byte minus 128 is in int8
        if (r % 4 == 0) return int8(int256((r >> 2) & 0xff) - 128);
        // forge-lint: disable-next-line(unsafe-typecast) -- x is a PAD component in [-100, 100]
        return int8(int256(x) + int256((r >> 2) % 7) - 3);
    }

    function _pick(
        uint256 r
    ) internal pure returns (bytes4) {
        return [SWAP, DEPOSIT, TRANSFER, APPROVE, EMPTY, OTHER][r % 6];
    }

    /// A call with a random selector (listed or not): empty calldata, 1-3 bytes, or selector + arguments.
    function _execution(
        uint256 r,
        bytes4[] memory restricted
    ) internal pure returns (Execution memory) {
        bytes4 sel = restricted.length != 0 && r % 3 == 0 ? restricted[(r >> 2) % restricted.length] : _pick(r >> 2);
        bytes memory cd;
        if (sel != EMPTY) cd = abi.encodePacked(sel, r >> 8);
        // forge-lint: disable-next-line(unsafe-typecast) -- any 3 bytes: shorter than a selector, reads as 0x00000000
        else if ((r >> 6) % 3 == 0) cd = abi.encodePacked(bytes3(uint24(r >> 8)));
        else if ((r >> 6) % 3 == 1) cd = abi.encodePacked(bytes4(0), r >> 8);
        return Execution(TARGET, (r >> 7) % 2 == 0 ? 0 : 1 ether, cd);
    }

    function _setWord(
        bytes memory data,
        uint256 index,
        uint256 value
    ) internal pure returns (bytes memory) {
        assembly ("memory-safe") {
            mstore(add(data, add(32, mul(index, 32))), value)
        }
        return data;
    }
}
