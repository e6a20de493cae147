// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @notice The views of Uniswap V3's NonfungiblePositionManager that find and price a position (its ERC-721
///         enumeration, positions(tokenId), the factory), and the events a position's close emits.
interface INonfungiblePositionManagerViews {
    event DecreaseLiquidity(uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
    event Collect(uint256 indexed tokenId, address recipient, uint256 amount0, uint256 amount1);

    function factory() external view returns (address);

    function balanceOf(
        address owner
    ) external view returns (uint256);

    function tokenOfOwnerByIndex(
        address owner,
        uint256 index
    ) external view returns (uint256);

    function positions(
        uint256 tokenId
    )
        external
        view
        returns (
            uint96 nonce,
            address operator,
            address token0,
            address token1,
            uint24 fee,
            int24 tickLower,
            int24 tickUpper,
            uint128 liquidity,
            uint256 feeGrowthInside0LastX128,
            uint256 feeGrowthInside1LastX128,
            uint128 tokensOwed0,
            uint128 tokensOwed1
        );
}

/// @notice UniswapV3Factory's pool lookup.
interface IUniswapV3FactoryViews {
    function getPool(
        address tokenA,
        address tokenB,
        uint24 fee
    ) external view returns (address pool);
}

/// @notice UniswapV3Pool's current price.
interface IUniswapV3PoolViews {
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
        );
}
