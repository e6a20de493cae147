// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { ExecutionLib, Execution } from "../libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../libraries/UsdValuation.sol";
import { INonfungiblePositionManagerViews, IUniswapV3FactoryViews, IUniswapV3PoolViews } from "../interfaces/IUniswapV3.sol";

/// @title MaxSlippageEnforcer
/// @notice A swap may not accept a minimum output further below the feed-implied output than the
///         delegation allows, and liquidity may only be removed from a pool whose price is within the same
///         cap of the feeds' price, so a leaked key can neither sell the owner's tokens into a sandwich nor
///         take a position out of a pool a sandwich has moved.
/// @dev Terms: abi.encode(uint16 maxSlippageBps, uint32 maxPriceAge, TokenFeed[] feeds), bps <= 10000.
///      Decodes Uniswap SwapRouter02 exactInputSingle 0x04e45aaf and exactInput 0xb858183f, SwapRouter v1
///      exactInputSingle 0x414bf389 and exactInput 0xc04b8d59 (with deadline), and V2
///      swapExactTokensForTokens 0x38ed1739, whatever the target; every other call passes. tokenIn and
///      tokenOut are the first and last tokens of a path. Expected output is floored:
///      amountIn * pIn * 10**(decOut + feedDecOut) / (pOut * 10**(decIn + feedDecIn)).
///      slippageBps = (expected - minOut) * 10000 / expected, floored, 0 when minOut >= expected.
///
///      Removing liquidity: a Uniswap V3 NonfungiblePositionManager decreaseLiquidity 0x0c49ccbe, whatever
///      the target, reads the position's token0, token1 and fee from the target's positions(tokenId), its pool
///      from factory().getPool(token0, token1, fee) and the pool's sqrtPriceX96 from slot0(). The pool's price
///      (token1 base units per token0 base unit, Q96, floored) is poolPriceX96 = sqrtPriceX96**2 / 2**96; the
///      feeds' is feedPriceX96 = p0 * 10**(dec1 + feedDec1) * 2**96 / (p1 * 10**(dec0 + feedDec0)), floored.
///      deviationBps = |pool - feed| * 10000 / feed, floored (feed 0: 0 if the pool is 0 too, else the maximum).
///      The manager pays the position out at the pool's price in the same call, so the price the hook reads
///      is the price the owner gets: the minimums are not needed for the bound and are not checked. A call
///      before the decrease in the same batch could move the pool after the hook read it, so only other
///      decreaseLiquidity and collect calls on the same target may come before one.
contract MaxSlippageEnforcer is CaveatEnforcer {
    error SlippageExceeded(uint256 expectedOut, uint256 minOut, uint256 slippageBps, uint256 maxSlippageBps);
    error MalformedSwap(bytes4 selector);
    error InvalidSlippageBps(uint16 maxSlippageBps);
    error PoolPriceOffFeeds(
        address pool, uint256 poolPriceX96, uint256 feedPriceX96, uint256 deviationBps, uint256 maxSlippageBps
    );
    error NoPool(address token0, address token1, uint24 fee);
    error MalformedLiquidityRemoval(bytes4 selector);
    error LiquidityRemovalAfterOtherCall(uint256 index, uint256 otherCall);

    bytes4 internal constant EXACT_INPUT_SINGLE_02 = 0x04e45aaf;
    bytes4 internal constant EXACT_INPUT_02 = 0xb858183f;
    bytes4 internal constant EXACT_INPUT_SINGLE_V1 = 0x414bf389;
    bytes4 internal constant EXACT_INPUT_V1 = 0xc04b8d59;
    bytes4 internal constant SWAP_EXACT_TOKENS_V2 = 0x38ed1739;
    bytes4 internal constant DECREASE_LIQUIDITY = 0x0c49ccbe;
    bytes4 internal constant COLLECT = 0xfc6f7865;
    uint256 internal constant Q96 = 2 ** 96;

    struct Swap {
        address tokenIn;
        address tokenOut;
        uint256 amountIn;
        uint256 minOut;
    }

    /// @notice Checks every swap and every liquidity removal in the redemption against the slippage cap at
    ///         fresh feed prices, in order.
    /// @dev Reverts SlippageExceeded, MalformedSwap, PoolPriceOffFeeds, NoPool, MalformedLiquidityRemoval,
    ///      LiquidityRemovalAfterOtherCall, UnpricedAsset, StalePrice, InvalidPrice, UnsupportedCallType,
    ///      InvalidTermsLength, InvalidTokenFeed or InvalidSlippageBps. Stateless, so try-mode is allowed: a
    ///      failed swap or removal moves nothing.
    function beforeHook(
        bytes calldata terms,
        bytes calldata,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32,
        address,
        address
    ) public view override {
        (uint16 maxBps, uint32 maxPriceAge, TokenFeed[] memory feeds) = _decodeTerms(terms);
        Execution[] memory executions = ExecutionLib.decode(mode, executionCallData);
        for (uint256 i; i < executions.length; ++i) {
            if (_selectorOf(executions[i].callData) == DECREASE_LIQUIDITY) {
                _requireFirstOrAfterRemovals(executions, i);
                _checkRemoval(executions[i].target, executions[i].callData, feeds, maxPriceAge, maxBps);
                continue;
            }
            (bool isSwap, Swap memory s) = _decodeSwap(executions[i].callData);
            if (!isSwap) continue;
            (uint256 expectedOut, uint256 bps) = _slippage(s, feeds, maxPriceAge);
            if (bps > maxBps) revert SlippageExceeded(expectedOut, s.minOut, bps, maxBps);
        }
    }

    /// @notice Decodes terms exactly as the hook does; reverts InvalidTermsLength, InvalidTokenFeed or
    ///         InvalidSlippageBps.
    function getTermsInfo(
        bytes calldata terms
    ) public pure returns (uint16 maxSlippageBps, uint32 maxPriceAge, TokenFeed[] memory feeds) {
        return _decodeTerms(terms);
    }

    /// @notice The expected output at feed prices, the swap's minimum output and the implied slippage.
    /// @dev Reverts MalformedSwap for calldata that is not one of the decoded swaps.
    function quote(
        bytes calldata terms,
        bytes calldata callData
    ) external view returns (uint256 expectedOut, uint256 minOut, uint256 slippageBps) {
        (, uint32 maxPriceAge, TokenFeed[] memory feeds) = _decodeTerms(terms);
        (bool isSwap, Swap memory s) = _decodeSwap(callData);
        if (!isSwap) revert MalformedSwap(callData.length < 4 ? bytes4(0) : bytes4(callData[:4]));
        (expectedOut, slippageBps) = _slippage(s, feeds, maxPriceAge);
        minOut = s.minOut;
    }

    /// @notice The pool a liquidity removal pays out from, its price and the feeds' price (token1 base units
    ///         per token0 base unit, Q96) and how far apart they are.
    /// @dev Reverts MalformedLiquidityRemoval for calldata that is not a decreaseLiquidity.
    function removalPrice(
        bytes calldata terms,
        address target,
        bytes calldata callData
    ) external view returns (address pool, uint256 poolPriceX96, uint256 feedPriceX96, uint256 deviationBps) {
        (, uint32 maxPriceAge, TokenFeed[] memory feeds) = _decodeTerms(terms);
        if (_selectorOf(callData) != DECREASE_LIQUIDITY) revert MalformedLiquidityRemoval(_selectorOf(callData));
        return _removalPrice(target, callData, feeds, maxPriceAge);
    }

    function _checkRemoval(
        address target,
        bytes memory callData,
        TokenFeed[] memory feeds,
        uint256 maxPriceAge,
        uint256 maxBps
    ) private view {
        (address pool, uint256 poolPriceX96, uint256 feedPriceX96, uint256 bps) =
            _removalPrice(target, callData, feeds, maxPriceAge);
        if (bps > maxBps) revert PoolPriceOffFeeds(pool, poolPriceX96, feedPriceX96, bps, maxBps);
    }

    function _removalPrice(
        address target,
        bytes memory callData,
        TokenFeed[] memory feeds,
        uint256 maxPriceAge
    ) private view returns (address pool, uint256 poolPriceX96, uint256 feedPriceX96, uint256 bps) {
        // decreaseLiquidity((tokenId, liquidity, amount0Min, amount1Min, deadline)): five static words.
        if (callData.length < 4 + 160) revert MalformedLiquidityRemoval(DECREASE_LIQUIDITY);
        (,, address token0, address token1, uint24 fee,,,,,,,) =
            INonfungiblePositionManagerViews(target).positions(_word(callData, 4));
        pool = IUniswapV3FactoryViews(INonfungiblePositionManagerViews(target).factory()).getPool(token0, token1, fee);
        if (pool.code.length == 0) revert NoPool(token0, token1, fee);
        (uint160 sqrtPriceX96,,,,,,) = IUniswapV3PoolViews(pool).slot0();
        poolPriceX96 = UsdValuation.mulDiv(sqrtPriceX96, sqrtPriceX96, Q96, false);
        feedPriceX96 = _feedPriceX96(token0, token1, feeds, maxPriceAge);
        if (feedPriceX96 == 0) {
            bps = poolPriceX96 == 0 ? 0 : type(uint256).max;
        } else {
            uint256 gap = poolPriceX96 > feedPriceX96 ? poolPriceX96 - feedPriceX96 : feedPriceX96 - poolPriceX96;
            bps = UsdValuation.mulDiv(gap, 10_000, feedPriceX96, false);
        }
    }

    function _feedPriceX96(
        address token0,
        address token1,
        TokenFeed[] memory feeds,
        uint256 maxPriceAge
    ) private view returns (uint256) {
        uint256 a = UsdValuation.indexOf(feeds, token0);
        if (a == UsdValuation.NOT_LISTED) revert UsdValuation.UnpricedAsset(token0);
        uint256 b = UsdValuation.indexOf(feeds, token1);
        if (b == UsdValuation.NOT_LISTED) revert UsdValuation.UnpricedAsset(token1);
        (uint256 p0, uint8 feedDec0) = UsdValuation.readPrice(feeds[a].feed, maxPriceAge);
        (uint256 p1, uint8 feedDec1) = UsdValuation.readPrice(feeds[b].feed, maxPriceAge);
        uint256 e1 = uint256(feeds[b].decimals) + feedDec1;
        uint256 e0 = uint256(feeds[a].decimals) + feedDec0;
        // Only one side carries a power of ten; absurd decimals or prices overflow and revert (Panic).
        uint256 num = e1 >= e0 ? p0 * 10 ** (e1 - e0) : p0;
        uint256 den = e1 >= e0 ? p1 : p1 * 10 ** (e0 - e1);
        return UsdValuation.mulDiv(num, Q96, den, false);
    }

    /// @dev Reverts LiquidityRemovalAfterOtherCall unless every execution before `index` is a
    ///      decreaseLiquidity or collect on the same target.
    function _requireFirstOrAfterRemovals(
        Execution[] memory executions,
        uint256 index
    ) private pure {
        address target = executions[index].target;
        for (uint256 j; j < index; ++j) {
            bytes4 sel = _selectorOf(executions[j].callData);
            if (executions[j].target != target || (sel != DECREASE_LIQUIDITY && sel != COLLECT)) {
                revert LiquidityRemovalAfterOtherCall(index, j);
            }
        }
    }

    function _selectorOf(
        bytes memory cd
    ) private pure returns (bytes4 sel) {
        if (cd.length < 4) return bytes4(0);
        // forge-lint: disable-next-line(unsafe-typecast) -- the first 4 bytes are the selector (len >= 4 checked)
        sel = bytes4(cd);
    }

    function _slippage(
        Swap memory s,
        TokenFeed[] memory feeds,
        uint256 maxPriceAge
    ) private view returns (uint256 expectedOut, uint256 bps) {
        uint256 i = UsdValuation.indexOf(feeds, s.tokenIn);
        if (i == UsdValuation.NOT_LISTED) revert UsdValuation.UnpricedAsset(s.tokenIn);
        uint256 o = UsdValuation.indexOf(feeds, s.tokenOut);
        if (o == UsdValuation.NOT_LISTED) revert UsdValuation.UnpricedAsset(s.tokenOut);
        (uint256 pIn, uint8 feedDecIn) = UsdValuation.readPrice(feeds[i].feed, maxPriceAge);
        (uint256 pOut, uint8 feedDecOut) = UsdValuation.readPrice(feeds[o].feed, maxPriceAge);

        uint256 eOut = uint256(feeds[o].decimals) + feedDecOut;
        uint256 eIn = uint256(feeds[i].decimals) + feedDecIn;
        // Only one side carries a power of ten; absurd decimals or prices overflow and revert (Panic).
        uint256 num = eOut >= eIn ? pIn * 10 ** (eOut - eIn) : pIn;
        uint256 den = eOut >= eIn ? pOut : pOut * 10 ** (eIn - eOut);
        expectedOut = UsdValuation.mulDiv(s.amountIn, num, den, false);
        if (s.minOut < expectedOut) bps = UsdValuation.mulDiv(expectedOut - s.minOut, 10_000, expectedOut, false);
    }

    /// @dev Manual decoding so that undecodable calldata gets MalformedSwap rather than an empty revert.
    ///      Offsets are bounds-checked before use; address words must be clean.
    function _decodeSwap(
        bytes memory cd
    ) private pure returns (bool isSwap, Swap memory s) {
        uint256 len = cd.length;
        if (len < 4) return (false, s);
        // forge-lint: disable-next-line(unsafe-typecast) -- the first 4 bytes are the selector (len >= 4 checked)
        bytes4 sel = bytes4(cd);
        if (sel == EXACT_INPUT_SINGLE_02 || sel == EXACT_INPUT_SINGLE_V1) {
            // (tokenIn, tokenOut, fee, recipient, [deadline,] amountIn, amountOutMinimum, sqrtPriceLimitX96)
            uint256 extra = sel == EXACT_INPUT_SINGLE_V1 ? 32 : 0;
            if (len < 4 + 224 + extra) revert MalformedSwap(sel);
            s.tokenIn = _addressAt(cd, 4, sel);
            s.tokenOut = _addressAt(cd, 36, sel);
            s.amountIn = _word(cd, 132 + extra);
            s.minOut = _word(cd, 164 + extra);
        } else if (sel == EXACT_INPUT_02 || sel == EXACT_INPUT_V1) {
            // ((bytes path, recipient, [deadline,] amountIn, amountOutMinimum))
            uint256 extra = sel == EXACT_INPUT_V1 ? 32 : 0;
            if (len < 36) revert MalformedSwap(sel);
            uint256 base = _word(cd, 4);
            if (base > len || len - base < 4 + 128 + extra) revert MalformedSwap(sel);
            base += 4;
            uint256 pathOffset = _word(cd, base);
            if (pathOffset > len || len - pathOffset < base + 32) revert MalformedSwap(sel);
            uint256 p = base + pathOffset;
            uint256 pathLength = _word(cd, p);
            if (pathLength > len - p - 32 || pathLength < 43 || (pathLength - 20) % 23 != 0) revert MalformedSwap(sel);
            s.tokenIn = address(bytes20(bytes32(_word(cd, p + 32))));
            s.tokenOut = address(bytes20(bytes32(_word(cd, p + 12 + pathLength))));
            s.amountIn = _word(cd, base + 64 + extra);
            s.minOut = _word(cd, base + 96 + extra);
        } else if (sel == SWAP_EXACT_TOKENS_V2) {
            // (amountIn, amountOutMin, address[] path, to, deadline)
            if (len < 4 + 160) revert MalformedSwap(sel);
            uint256 pathOffset = _word(cd, 68);
            if (pathOffset > len || len - pathOffset < 4 + 32) revert MalformedSwap(sel);
            uint256 p = 4 + pathOffset;
            uint256 n = _word(cd, p);
            if (n < 2 || n > (len - p - 32) / 32) revert MalformedSwap(sel);
            s.tokenIn = _addressAt(cd, p + 32, sel);
            s.tokenOut = _addressAt(cd, p + 32 * n, sel);
            s.amountIn = _word(cd, 4);
            s.minOut = _word(cd, 36);
        } else {
            return (false, s);
        }
        isSwap = true;
    }

    function _word(
        bytes memory data,
        uint256 offset
    ) private pure returns (uint256 w) {
        assembly ("memory-safe") {
            w := mload(add(add(data, 32), offset))
        }
    }

    function _addressAt(
        bytes memory data,
        uint256 offset,
        bytes4 sel
    ) private pure returns (address) {
        uint256 w = _word(data, offset);
        if (w >> 160 != 0) revert MalformedSwap(sel);
        // forge-lint: disable-next-line(unsafe-typecast) -- high bits checked zero just above
        return address(uint160(w));
    }

    function _decodeTerms(
        bytes calldata terms
    ) private pure returns (uint16 maxBps, uint32 maxPriceAge, TokenFeed[] memory feeds) {
        UsdValuation.requireFeedsLayout(terms, 3);
        (maxBps, maxPriceAge, feeds) = abi.decode(terms, (uint16, uint32, TokenFeed[]));
        if (maxBps > 10_000) revert InvalidSlippageBps(maxBps);
        UsdValuation.validateFeeds(feeds);
    }
}
