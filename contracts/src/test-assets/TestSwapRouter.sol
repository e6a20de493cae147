// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IERC20 } from "../interfaces/IERC20.sol";
import { IPriceFeed } from "../interfaces/IPriceFeed.sol";
import { UsdValuation } from "../libraries/UsdValuation.sol";

/// @title TestSwapRouter
/// @notice A Uniswap SwapRouter02-compatible router for the local devnet and tests: exactInputSingle
///         (0x04e45aaf) and exactInput (0xb858183f) with the real parameter structs, so clients encode real
///         swaps and enforcers decode them. LOCAL ONLY: never deploy to a real chain.
/// @dev There are no pools. Each hop takes the pool fee (hundredths of a bip) from its input and converts
///      the rest at feed prices: out = in * pIn * 10**(decOut + feedDecOut) / (pOut * 10**(decIn + feedDecIn)),
///      rounded down. The router pulls tokenIn from the caller and pays tokenOut from its own balance
///      (mint it some). Recipient address(1) means msg.sender and address(2) the router, as in
///      SwapRouter02. Anyone may set feeds: it is a local fixture.
contract TestSwapRouter {
    struct ExactInputSingleParams {
        address tokenIn;
        address tokenOut;
        uint24 fee;
        address recipient;
        uint256 amountIn;
        uint256 amountOutMinimum;
        uint160 sqrtPriceLimitX96;
    }

    struct ExactInputParams {
        bytes path;
        address recipient;
        uint256 amountIn;
        uint256 amountOutMinimum;
    }

    event FeedSet(address indexed token, address indexed feed);
    event Swapped(
        address indexed sender, address indexed recipient, address tokenIn, address tokenOut, uint256 amountIn, uint256 amountOut
    );

    mapping(address token => address feed) public feedOf;

    /// @notice Sets the USD feed used to price `token`.
    function setFeed(
        address token,
        address feed
    ) external {
        feedOf[token] = feed;
        emit FeedSet(token, feed);
    }

    /// @notice Swaps exactly amountIn of tokenIn for as much tokenOut as the feeds give after the fee.
    function exactInputSingle(
        ExactInputSingleParams calldata params
    ) external payable returns (uint256 amountOut) {
        amountOut = _hop(params.tokenIn, params.tokenOut, params.fee, params.amountIn);
        _settle(params.tokenIn, params.tokenOut, params.recipient, params.amountIn, amountOut, params.amountOutMinimum);
    }

    /// @notice Swaps exactly amountIn along a path (token, fee, token, fee, ..., token).
    function exactInput(
        ExactInputParams calldata params
    ) external payable returns (uint256 amountOut) {
        bytes calldata path = params.path;
        require(path.length >= 43 && (path.length - 20) % 23 == 0, "Invalid path");
        amountOut = params.amountIn;
        uint256 hops = (path.length - 20) / 23;
        for (uint256 i; i < hops; ++i) {
            uint256 at = i * 23;
            address a = address(bytes20(path[at:at + 20]));
            uint24 fee = uint24(bytes3(path[at + 20:at + 23]));
            address b = address(bytes20(path[at + 23:at + 43]));
            amountOut = _hop(a, b, fee, amountOut);
        }
        address tokenIn = address(bytes20(path[0:20]));
        address tokenOut = address(bytes20(path[path.length - 20:]));
        _settle(tokenIn, tokenOut, params.recipient, params.amountIn, amountOut, params.amountOutMinimum);
    }

    /// @notice What `amountIn` of tokenIn buys in one hop at current prices and `fee`.
    function quoteHop(
        address tokenIn,
        address tokenOut,
        uint24 fee,
        uint256 amountIn
    ) external view returns (uint256) {
        return _hop(tokenIn, tokenOut, fee, amountIn);
    }

    function _hop(
        address tokenIn,
        address tokenOut,
        uint24 fee,
        uint256 amountIn
    ) private view returns (uint256) {
        require(fee < 1_000_000, "Invalid fee");
        (uint256 pIn, uint256 eIn) = _price(tokenIn);
        (uint256 pOut, uint256 eOut) = _price(tokenOut);
        uint256 net = UsdValuation.mulDiv(amountIn, 1_000_000 - fee, 1_000_000, false);
        uint256 num = eOut >= eIn ? pIn * 10 ** (eOut - eIn) : pIn;
        uint256 den = eOut >= eIn ? pOut : pOut * 10 ** (eIn - eOut);
        return UsdValuation.mulDiv(net, num, den, false);
    }

    /// @dev The price and the power of ten it carries (token decimals + feed decimals).
    function _price(
        address token
    ) private view returns (uint256 price, uint256 exponent) {
        address feed = feedOf[token];
        require(feed != address(0), "No feed");
        (, int256 answer,,,) = IPriceFeed(feed).latestRoundData();
        require(answer > 0, "Invalid price");
        // forge-lint: disable-next-line(unsafe-typecast) -- answer > 0 required above
        price = uint256(answer);
        exponent = uint256(IERC20(token).decimals()) + IPriceFeed(feed).decimals();
    }

    function _settle(
        address tokenIn,
        address tokenOut,
        address recipient,
        uint256 amountIn,
        uint256 amountOut,
        uint256 amountOutMinimum
    ) private {
        require(amountOut >= amountOutMinimum, "Too little received");
        if (recipient == address(1)) recipient = msg.sender;
        else if (recipient == address(2)) recipient = address(this);
        require(IERC20(tokenIn).transferFrom(msg.sender, address(this), amountIn), "STF");
        if (recipient != address(this)) require(IERC20(tokenOut).transfer(recipient, amountOut), "ST");
        emit Swapped(msg.sender, recipient, tokenIn, tokenOut, amountIn, amountOut);
    }
}
