// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

// SwapRouter (v1) parameter structs: the SwapRouter02 ones plus a deadline. MaxSlippageEnforcer decodes
// both generations; the tests encode v1 calls with these.

struct V1ExactInputSingleParams {
    address tokenIn;
    address tokenOut;
    uint24 fee;
    address recipient;
    uint256 deadline;
    uint256 amountIn;
    uint256 amountOutMinimum;
    uint160 sqrtPriceLimitX96;
}

struct V1ExactInputParams {
    bytes path;
    address recipient;
    uint256 deadline;
    uint256 amountIn;
    uint256 amountOutMinimum;
}
