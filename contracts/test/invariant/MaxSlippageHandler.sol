// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { HookHandlerBase } from "./HookHandlerBase.sol";
import { SwapCalls } from "./SwapCalls.sol";
import { Execution, ExecutionLib } from "../../src/libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../../src/libraries/UsdValuation.sol";
import { MaxSlippageEnforcer } from "../../src/enforcers/MaxSlippageEnforcer.sol";
import { TestUSDC } from "../../src/test-assets/TestUSDC.sol";
import { TestToken } from "../../src/test-assets/TestToken.sol";
import { MockPriceFeed } from "../../src/test-assets/MockPriceFeed.sol";
import { TestSwapRouter } from "../../src/test-assets/TestSwapRouter.sol";

/// Random redemptions against MaxSlippageEnforcer: batches of the five decoded swaps (with intermediate
/// hops, trailing bytes, unlisted tokens, minimum outputs around the bound), malformed swaps and other
/// calls, single or batch, default or try-mode, at random prices that move, go stale and go non-positive.
/// The model (docs/contracts.md, MaxSlippageEnforcer) walks the executions in order: the first swap that
/// is malformed, unpriced, badly priced or over the cap decides the revert.
contract MaxSlippageHandler is HookHandlerBase, SwapCalls {
    uint32 internal constant MAX_AGE = 3600;
    uint256 internal constant TOKENS = 4; // USDC, WETH, DAI, WBTC (the order of the feeds in the terms)

    MaxSlippageEnforcer public immutable enforcer;
    TestSwapRouter public immutable router; // the swaps' target; its fee-0 quote is the feed-implied output
    TestToken public immutable unlisted;
    address[TOKENS] public tokens;
    MockPriceFeed[TOKENS] public feeds;
    TokenFeed[] internal feedList;
    TokenFeed[] internal feedListWithDuplicate; // WETH listed again with the DAI feed: the first entry wins

    uint256 public belowBoundAccepted; // an accepted swap under the feed-implied bound, or unpriceable
    uint256 public acceptedSwaps; // accepted redemptions with at least one well-formed swap
    uint256 public acceptedTryMode;
    uint256 public acceptedAtBound; // minOut exactly the lowest the cap allows (below the expected output)
    uint256 public refusedOneBelowBound; // minOut one unit under that
    uint256 public refusedSlippage;
    uint256 public refusedUnpriced;
    uint256 public refusedStale;
    uint256 public refusedInvalidPrice;
    uint256 public refusedMalformed;
    uint256 public refusedBadTerms;
    uint256 public refusedCallType;

    struct Terms {
        bytes terms;
        uint16 maxBps;
        uint32 maxAge;
        TokenFeed[] feeds;
        bytes fault; // the revert malformed terms or an unsupported call type must give first
    }

    struct Planned {
        bool isSwap; // one of the five selectors
        bool malformed; // built to be undecodable
        Swap swap;
    }

    constructor() {
        enforcer = new MaxSlippageEnforcer();
        router = new TestSwapRouter();
        tokens[0] = address(new TestUSDC());
        tokens[1] = address(new TestToken("Wrapped Ether", "WETH", 18));
        tokens[2] = address(new TestToken("Dai", "DAI", 18));
        tokens[3] = address(new TestToken("Wrapped Bitcoin", "WBTC", 8));
        unlisted = new TestToken("Unlisted", "UNL", 18);
        feeds[0] = new MockPriceFeed(8, 1e8, "USDC / USD");
        feeds[1] = new MockPriceFeed(8, 3000e8, "WETH / USD");
        feeds[2] = new MockPriceFeed(18, 1e18, "DAI / USD");
        feeds[3] = new MockPriceFeed(8, 60_000e8, "WBTC / USD");
        uint8[TOKENS] memory decimals = [6, 18, 18, 8];
        for (uint256 i; i < TOKENS; ++i) {
            feedList.push(TokenFeed(tokens[i], decimals[i], address(feeds[i])));
            feedListWithDuplicate.push(feedList[i]);
            router.setFeed(tokens[i], address(feeds[i]));
        }
        feedListWithDuplicate.push(TokenFeed(tokens[1], 18, address(feeds[2])));
    }

    // ------------------------------------------------------------------ time and prices

    function warp(
        uint256 seed
    ) external {
        vm.warp(block.timestamp + bound(seed >> 2, 0, seed % 4 == 0 ? 6 hours : 30 minutes));
    }

    /// A keeper round: every feed republishes its last answer now.
    function refreshPrices() public {
        for (uint256 i; i < TOKENS; ++i) {
            (, int256 answer,,,) = feeds[i].latestRoundData();
            feeds[i].setAnswer(answer);
        }
    }

    function setPrice(
        uint256 which,
        uint256 seed
    ) external {
        which %= TOKENS;
        int256 answer;
        if (seed % 32 == 0) answer = 0;
        else if (seed % 32 == 1) answer = -int256(bound(seed >> 8, 1, 1e20));
        else if (which == 0) answer = seed % 2 == 0 ? int256(1e8) : int256(bound(seed >> 8, 5e7, 2e8));
        else if (which == 2) answer = int256(bound(seed >> 8, 5e17, 2e18));
        else answer = int256(bound(seed >> 8, 1, 1e12));
        feeds[which].setAnswer(answer);
    }

    /// Half the time exactly at the edge: maxAge old (fresh) or one second more (stale).
    function makeStale(
        uint256 which,
        uint256 age
    ) external {
        which %= TOKENS;
        age = age % 2 == 0 ? MAX_AGE + (age >> 1) % 2 : bound(age >> 1, 0, 3 * uint256(MAX_AGE));
        (, int256 answer,,,) = feeds[which].latestRoundData();
        feeds[which].setRoundData(answer, block.timestamp > age ? block.timestamp - age : 0);
    }

    // ------------------------------------------------------------------ redemptions

    function swap(
        uint256 seed
    ) external {
        Terms memory t = _terms(seed);
        uint256 n = 1 + (seed >> 40) % 3;
        Planned[] memory plan = new Planned[](n);
        Execution[] memory e = new Execution[](n);
        for (uint256 i; i < n; ++i) {
            (plan[i], e[i]) = _execution(t, _rand(seed, i));
        }
        bool asBatch = n > 1 || (seed >> 44) % 2 == 0;
        _execute(t, _setMode(t, asBatch, seed >> 48), e, asBatch, plan, false);
    }

    /// One fresh-priced swap whose minimum output is exactly the lowest the cap allows, or one unit less.
    function swapAtBound(
        uint256 seed
    ) external {
        refreshPrices();
        Terms memory t = _terms(seed);
        Planned[] memory plan = new Planned[](1);
        Execution[] memory e = new Execution[](1);
        Swap memory s = _swapShape(seed >> 64);
        s.tokenIn = tokens[(seed >> 96) % TOKENS];
        s.tokenOut = tokens[(seed >> 104) % TOKENS];
        s.amountIn = bound(seed >> 112, 1, 1e6) * 10 ** _decimalsOf(t.feeds, s.tokenIn);
        (bytes memory err, uint256 expected) = _price(t, s);
        uint256 lowest = _lowestAllowedMinOut(expected, t.maxBps);
        s.minOut = (seed >> 160) % 2 == 0 || lowest == 0 ? lowest : lowest - 1;
        plan[0] = Planned(true, false, s);
        e[0] = Execution(address(router), 0, _swapCall(s));
        bool boundaryCase = err.length == 0 && t.fault.length == 0 && lowest < expected;
        _execute(t, _mode(SINGLE, (seed >> 200) % 3 == 0 ? TRY_EXEC : DEFAULT_EXEC), e, false, plan, boundaryCase);
    }

    function _execute(
        Terms memory t,
        bytes32 mode,
        Execution[] memory e,
        bool asBatch,
        Planned[] memory plan,
        bool boundaryCase
    ) internal {
        bytes memory want = t.fault.length != 0 ? t.fault : _model(t, plan);
        bool ok = _run(address(enforcer), t.terms, mode, _encode(e, asBatch), want);
        bool atLowest;
        if (boundaryCase) {
            // The model's slippage formula and the bound derived apart from it must agree at the edge.
            atLowest = plan[0].swap.minOut == _lowestAllowedMinOut(_expectedOf(t, plan[0].swap), t.maxBps);
            if (atLowest != (want.length == 0)) _mismatch("the model and the lowest allowed minOut disagree");
        }
        if (ok) {
            if (!_withinBound(t, plan)) belowBoundAccepted++;
            if (want.length != 0) return;
            for (uint256 i; i < plan.length; ++i) {
                if (plan[i].isSwap && !plan[i].malformed) {
                    acceptedSwaps++;
                    break;
                }
            }
            if (ExecutionLib.execType(mode) != DEFAULT_EXEC) acceptedTryMode++;
            if (atLowest) acceptedAtBound++;
            return;
        }
        bytes4 sel = _selector(want);
        if (sel == MaxSlippageEnforcer.SlippageExceeded.selector) {
            refusedSlippage++;
            if (boundaryCase && !atLowest) refusedOneBelowBound++;
        } else if (sel == UsdValuation.UnpricedAsset.selector) {
            refusedUnpriced++;
        } else if (sel == UsdValuation.StalePrice.selector) {
            refusedStale++;
        } else if (sel == UsdValuation.InvalidPrice.selector) {
            refusedInvalidPrice++;
        } else if (sel == MaxSlippageEnforcer.MalformedSwap.selector) {
            refusedMalformed++;
        } else if (sel == ExecutionLib.UnsupportedCallType.selector) {
            refusedCallType++;
        } else {
            refusedBadTerms++;
        }
    }

    // ------------------------------------------------------------------ the model

    /// Every execution in order; non-swaps pass; the first swap that is malformed, names an unlisted
    /// token, has a stale or non-positive price, or allows more slippage than the cap decides the revert.
    function _model(
        Terms memory t,
        Planned[] memory plan
    ) internal view returns (bytes memory) {
        for (uint256 i; i < plan.length; ++i) {
            if (!plan[i].isSwap) continue;
            Swap memory s = plan[i].swap;
            if (plan[i].malformed) return abi.encodeWithSelector(MaxSlippageEnforcer.MalformedSwap.selector, s.selector);
            (bytes memory err, uint256 expected) = _price(t, s);
            if (err.length != 0) return err;
            // slippage = floor((expected - minOut) * 10000 / expected), 0 when minOut >= expected
            uint256 bps = s.minOut >= expected ? 0 : (expected - s.minOut) * 10_000 / expected;
            if (bps > t.maxBps) {
                return abi.encodeWithSelector(MaxSlippageEnforcer.SlippageExceeded.selector, expected, s.minOut, bps, t.maxBps);
            }
        }
        return "";
    }

    /// Listing first (tokenIn, tokenOut), then each price (stale, then non-positive), then the expected
    /// output amountIn * pIn * 10**(decOut + feedDecOut) / (pOut * 10**(decIn + feedDecIn)), floored.
    function _price(
        Terms memory t,
        Swap memory s
    ) internal view returns (bytes memory err, uint256 expected) {
        (bool listedIn, TokenFeed memory fIn) = _entry(t.feeds, s.tokenIn);
        if (!listedIn) return (abi.encodeWithSelector(UsdValuation.UnpricedAsset.selector, s.tokenIn), 0);
        (bool listedOut, TokenFeed memory fOut) = _entry(t.feeds, s.tokenOut);
        if (!listedOut) return (abi.encodeWithSelector(UsdValuation.UnpricedAsset.selector, s.tokenOut), 0);
        uint256 pIn;
        uint256 pOut;
        (err, pIn) = _answer(fIn.feed, t.maxAge);
        if (err.length != 0) return (err, 0);
        (err, pOut) = _answer(fOut.feed, t.maxAge);
        if (err.length != 0) return (err, 0);
        uint256 eIn = fIn.decimals + MockPriceFeed(fIn.feed).decimals();
        uint256 eOut = fOut.decimals + MockPriceFeed(fOut.feed).decimals();
        // Amounts stay under 1e31 and prices under 2e18, so neither product passes 2**256.
        expected = eOut >= eIn ? s.amountIn * pIn * 10 ** (eOut - eIn) / pOut : s.amountIn * pIn / (pOut * 10 ** (eIn - eOut));
    }

    function _expectedOf(
        Terms memory t,
        Swap memory s
    ) internal view returns (uint256 expected) {
        (, expected) = _price(t, s);
    }

    function _entry(
        TokenFeed[] memory list,
        address token
    ) internal pure returns (bool, TokenFeed memory) {
        for (uint256 i; i < list.length; ++i) {
            if (list[i].token == token) return (true, list[i]);
        }
        return (false, TokenFeed(address(0), 0, address(0)));
    }

    function _answer(
        address feed,
        uint32 maxAge
    ) internal view returns (bytes memory err, uint256 price) {
        (, int256 answer,, uint256 updatedAt,) = MockPriceFeed(feed).latestRoundData();
        if (block.timestamp > updatedAt && block.timestamp - updatedAt > maxAge) {
            return (abi.encodeWithSelector(UsdValuation.StalePrice.selector, feed, updatedAt, maxAge), 0);
        }
        if (answer <= 0) return (abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, feed, answer), 0);
        // forge-lint: disable-next-line(unsafe-typecast) -- answer > 0 checked just above
        price = uint256(answer);
    }

    /// The lowest minimum output the cap allows, derived separately from the model's slippage formula:
    /// floor((E - m) * 10000 / E) <= B  <=>  (E - m) * 10000 < (B + 1) * E  <=>  m >= E - floor(((B + 1) * E - 1) / 10000).
    function _lowestAllowedMinOut(
        uint256 expected,
        uint256 maxBps
    ) internal pure returns (uint256) {
        if (expected == 0) return 0;
        uint256 slack = ((maxBps + 1) * expected - 1) / 10_000;
        return slack >= expected ? 0 : expected - slack;
    }

    /// The rule itself, checked on every accepted redemption: each swap in it was well-formed, priced by
    /// fresh positive feeds, and asked at least the lowest minimum output the cap allows from the router's
    /// fee-free quote at those feeds (TestSwapRouter, not the model's formula).
    function _withinBound(
        Terms memory t,
        Planned[] memory plan
    ) internal view returns (bool) {
        for (uint256 i; i < plan.length; ++i) {
            if (!plan[i].isSwap) continue;
            Swap memory s = plan[i].swap;
            if (plan[i].malformed || t.fault.length != 0) return false;
            (bytes memory err,) = _price(t, s);
            if (err.length != 0) return false;
            uint256 quoted = router.quoteHop(s.tokenIn, s.tokenOut, 0, s.amountIn);
            if (s.minOut < _lowestAllowedMinOut(quoted, t.maxBps)) return false;
        }
        return true;
    }

    // ------------------------------------------------------------------ generators

    /// Caps from 0 to 10000 bps, feeds fresh for an hour (sometimes only this second), sometimes WETH listed
    /// twice; one call in 16 has an out-of-range cap or a non-canonical layout.
    function _terms(
        uint256 seed
    ) internal view returns (Terms memory t) {
        uint256 r = seed % 10;
        t.maxBps = r < 8 ? [uint16(0), 1, 30, 50, 100, 500, 9999, 10_000][r] : uint16(bound(seed >> 4, 0, 10_000));
        t.maxAge = (seed >> 16) % 8 == 0 ? 0 : MAX_AGE;
        t.feeds = (seed >> 20) % 4 == 0 ? feedListWithDuplicate : feedList;
        t.terms = abi.encode(t.maxBps, t.maxAge, t.feeds);
        uint256 f = (seed >> 24) % 32;
        if (f == 0) {
            uint16 bad = uint16(bound(seed >> 32, 10_001, type(uint16).max));
            t.terms = abi.encode(bad, t.maxAge, t.feeds);
            t.fault = abi.encodeWithSelector(MaxSlippageEnforcer.InvalidSlippageBps.selector, bad);
        } else if (f == 1) {
            t.terms = abi.encodePacked(t.terms, bytes1(0));
            t.fault = abi.encodeWithSelector(UsdValuation.InvalidTermsLength.selector, t.terms.length);
        }
    }

    /// Single or batch, default or try-mode (both allowed: the hook is stateless); with sound terms, one
    /// call in 24 uses an unsupported call type.
    function _setMode(
        Terms memory t,
        bool asBatch,
        uint256 r
    ) internal pure returns (bytes32) {
        bytes1 execType = r % 3 == 0 ? TRY_EXEC : DEFAULT_EXEC;
        if (t.fault.length == 0 && (r >> 2) % 24 == 0) {
            bytes1 callType = (r >> 8) % 2 == 0 ? bytes1(0xff) : bytes1(0x02);
            t.fault = abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, callType);
            return _mode(callType, execType);
        }
        return _mode(asBatch ? BATCH : SINGLE, execType);
    }

    function _execution(
        Terms memory t,
        uint256 r
    ) internal view returns (Planned memory p, Execution memory x) {
        uint256 kind = r % 10;
        if (kind >= 8) return (p, _otherCall(r >> 8));
        p.isSwap = true;
        p.swap = _swapShape(r >> 8);
        Swap memory s = p.swap;
        s.tokenIn = _token(r >> 16);
        s.tokenOut = _token(r >> 24);
        s.amountIn = _logAmount(r >> 32, 30);
        (bytes memory err, uint256 expected) = _price(t, s);
        s.minOut = err.length == 0 ? _minOut(expected, t.maxBps, r >> 128) : _logAmount(r >> 128, 30);
        p.malformed = kind == 7;
        bytes memory cd = p.malformed ? _malformedCall(s, r >> 64) : _swapCall(s);
        if (!p.malformed && (r >> 240) % 8 == 0) cd = abi.encodePacked(cd, bytes32(r), bytes7(0)); // trailing bytes
        x = Execution(address(router), 0, cd);
    }

    /// A random selector of the five, with 0-2 intermediate tokens (listed or not).
    function _swapShape(
        uint256 r
    ) internal view returns (Swap memory s) {
        s.selector = [EXACT_INPUT_SINGLE_02, EXACT_INPUT_SINGLE_V1, EXACT_INPUT_02, EXACT_INPUT_V1, SWAP_EXACT_TOKENS_V2][r % 5];
        bool single = s.selector == EXACT_INPUT_SINGLE_02 || s.selector == EXACT_INPUT_SINGLE_V1;
        s.middle = new address[](single ? 0 : (r >> 4) % 3);
        for (uint256 i; i < s.middle.length; ++i) {
            s.middle[i] = _token(r >> (8 + 8 * i));
        }
    }

    /// Around the bound: at or above the expected output, inside or outside the cap, exactly at the lowest
    /// allowed minimum or one under it, zero, or unrelated.
    function _minOut(
        uint256 expected,
        uint256 maxBps,
        uint256 r
    ) internal pure returns (uint256) {
        uint256 k = r % 8;
        if (k == 0) return 0;
        if (k == 1) return expected;
        if (k == 2) return expected + _logAmount(r >> 8, 20);
        if (k == 6) {
            uint256 lowest = _lowestAllowedMinOut(expected, maxBps);
            return (r >> 8) % 2 == 0 || lowest == 0 ? lowest : lowest - 1;
        }
        if (k == 7) return _logAmount(r >> 8, 30);
        uint256 cut = bound(r >> 8, 0, 2 * maxBps + 2);
        return expected - expected * (cut > 10_000 ? 10_000 : cut) / 10_000;
    }

    /// Calls that are not one of the five swaps and so always pass: an exact-output swap, a token
    /// transfer, empty calldata, a cut-off selector.
    function _otherCall(
        uint256 r
    ) internal view returns (Execution memory) {
        uint256 k = r % 4;
        if (k == 0) return Execution(address(router), 0, abi.encodeWithSelector(bytes4(0x5023b4df), r, r >> 8));
        if (k == 1) return Execution(tokens[0], 0, abi.encodeWithSelector(bytes4(0xa9059cbb), RECIPIENT, r));
        if (k == 2) return Execution(address(router), r % 1e18, "");
        return Execution(address(router), 0, hex"04e45a");
    }

    /// A listed token, one time in sixteen the unlisted one.
    function _token(
        uint256 r
    ) internal view returns (address) {
        return r % 16 == 0 ? address(unlisted) : tokens[(r >> 3) % TOKENS];
    }

    function _decimalsOf(
        TokenFeed[] memory list,
        address token
    ) internal pure returns (uint256) {
        (, TokenFeed memory f) = _entry(list, token);
        return f.decimals;
    }
}
