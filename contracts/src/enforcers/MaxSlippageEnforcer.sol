// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { ExecutionLib, Execution } from "../libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../libraries/UsdValuation.sol";

/// @title MaxSlippageEnforcer
/// @notice A swap may not accept a minimum output further below the feed-implied output than the
///         delegation allows, so a leaked key cannot sell the owner's tokens into a sandwich.
/// @dev Terms: abi.encode(uint16 maxSlippageBps, uint32 maxPriceAge, TokenFeed[] feeds), bps <= 10000.
///      Decodes Uniswap SwapRouter02 exactInputSingle 0x04e45aaf and exactInput 0xb858183f, SwapRouter v1
///      exactInputSingle 0x414bf389 and exactInput 0xc04b8d59 (with deadline), and V2
///      swapExactTokensForTokens 0x38ed1739, whatever the target; every other call passes. tokenIn and
///      tokenOut are the first and last tokens of a path. Expected output is floored:
///      amountIn * pIn * 10**(decOut + feedDecOut) / (pOut * 10**(decIn + feedDecIn)).
///      slippageBps = (expected - minOut) * 10000 / expected, floored, 0 when minOut >= expected.
contract MaxSlippageEnforcer is CaveatEnforcer {
    error SlippageExceeded(uint256 expectedOut, uint256 minOut, uint256 slippageBps, uint256 maxSlippageBps);
    error MalformedSwap(bytes4 selector);
    error InvalidSlippageBps(uint16 maxSlippageBps);

    bytes4 internal constant EXACT_INPUT_SINGLE_02 = 0x04e45aaf;
    bytes4 internal constant EXACT_INPUT_02 = 0xb858183f;
    bytes4 internal constant EXACT_INPUT_SINGLE_V1 = 0x414bf389;
    bytes4 internal constant EXACT_INPUT_V1 = 0xc04b8d59;
    bytes4 internal constant SWAP_EXACT_TOKENS_V2 = 0x38ed1739;

    struct Swap {
        address tokenIn;
        address tokenOut;
        uint256 amountIn;
        uint256 minOut;
    }

    /// @notice Checks every swap in the redemption against the slippage cap at fresh feed prices.
    /// @dev Reverts SlippageExceeded, MalformedSwap, UnpricedAsset, StalePrice, InvalidPrice,
    ///      UnsupportedCallType, InvalidTermsLength, InvalidTokenFeed or InvalidSlippageBps. Stateless, so
    ///      try-mode is allowed: a failed swap moves nothing.
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
