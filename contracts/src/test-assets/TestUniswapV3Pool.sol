// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @title TestUniswapV3Pool
/// @notice A Uniswap V3 pool reduced to its price: token0(), token1(), fee() and slot0() with the real
///         return shape, and movePrice, which stands in for a swap that moves the price (a sandwich's
///         first leg). LOCAL ONLY: never deploy to a real chain.
contract TestUniswapV3Pool {
    address public immutable token0;
    address public immutable token1;
    uint24 public immutable fee;
    uint160 internal _sqrtPriceX96;

    event PriceMoved(uint160 sqrtPriceX96);

    constructor(
        address token0_,
        address token1_,
        uint24 fee_,
        uint160 sqrtPriceX96_
    ) {
        (token0, token1, fee, _sqrtPriceX96) = (token0_, token1_, fee_, sqrtPriceX96_);
    }

    /// @notice UniswapV3Pool.slot0; only sqrtPriceX96 is kept, the rest is 0 and unlocked is true.
    function slot0()
        external
        view
        returns (
            uint160 sqrtPriceX96,
            int24 tick,
            uint16 observationIndex,
            uint16 observationCardinality,
            uint16 observationCardinalityNext,
            uint8 feeProtocol,
            bool unlocked
        )
    {
        return (_sqrtPriceX96, 0, 0, 0, 0, 0, true);
    }

    /// @notice Sets the pool's price, as a swap through the pool would.
    function movePrice(
        uint160 sqrtPriceX96
    ) external {
        require(sqrtPriceX96 > 0, "price");
        _sqrtPriceX96 = sqrtPriceX96;
        emit PriceMoved(sqrtPriceX96);
    }
}
