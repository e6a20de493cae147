// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IERC20 } from "../interfaces/IERC20.sol";
import { TestUniswapV3Pool } from "./TestUniswapV3Pool.sol";

/// @title TestPositionManager
/// @notice A Uniswap V3 NonfungiblePositionManager-shaped contract for tests: mint (0x88316456),
///         decreaseLiquidity (0x0c49ccbe) and collect (0xfc6f7865) with the real parameter structs, and the
///         real views a caller reads a position by: positions(tokenId) (the real twelve fields), factory(),
///         ownerOf, balanceOf and tokenOfOwnerByIndex (ERC-721 enumerable). It is also its own factory:
///         getPool(tokenA, tokenB, fee) as UniswapV3Factory answers it. LOCAL ONLY: never deploy to a real chain.
/// @dev The first mint of a (token0, token1, fee) creates its pool (both amounts positive), priced at its ratio
///      amount1Desired / amount0Desired (as a first deposit prices a pool); the pool only holds a price
///      (slot0), which tests move to stand in for a swap. A position's liquidity is amount0 + amount1 as
///      deposited, and decreasing it owes both tokens back pro rata whatever the pool's price, checked
///      against the minimums as the real manager does ("Price slippage check"). Only a position's owner
///      may decrease or collect it.
contract TestPositionManager {
    struct MintParams {
        address token0;
        address token1;
        uint24 fee;
        int24 tickLower;
        int24 tickUpper;
        uint256 amount0Desired;
        uint256 amount1Desired;
        uint256 amount0Min;
        uint256 amount1Min;
        address recipient;
        uint256 deadline;
    }

    struct DecreaseLiquidityParams {
        uint256 tokenId;
        uint128 liquidity;
        uint256 amount0Min;
        uint256 amount1Min;
        uint256 deadline;
    }

    struct CollectParams {
        uint256 tokenId;
        address recipient;
        uint128 amount0Max;
        uint128 amount1Max;
    }

    struct Position {
        address owner;
        address token0;
        address token1;
        uint24 fee;
        int24 tickLower;
        int24 tickUpper;
        uint128 liquidity;
        uint256 amount0;
        uint256 amount1;
        uint128 owed0;
        uint128 owed1;
    }

    mapping(uint256 tokenId => Position) internal _positions;
    mapping(address owner => uint256[] tokenIds) internal _owned;
    mapping(address tokenA => mapping(address tokenB => mapping(uint24 fee => address pool))) public getPool;
    uint256 public nextId = 1;

    event IncreaseLiquidity(uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
    event DecreaseLiquidity(uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
    event Collect(uint256 indexed tokenId, address recipient, uint256 amount0, uint256 amount1);
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool);

    /// @notice The factory whose getPool prices this manager's positions: this contract.
    function factory() external view returns (address) {
        return address(this);
    }

    /// @notice NonfungiblePositionManager.positions: nonce and operator are 0, fee growth is not tracked,
    ///         tokensOwed are what collect would pay.
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
        )
    {
        Position storage p = _positions[tokenId];
        require(p.owner != address(0), "Invalid token ID");
        return (0, address(0), p.token0, p.token1, p.fee, p.tickLower, p.tickUpper, p.liquidity, 0, 0, p.owed0, p.owed1);
    }

    function ownerOf(
        uint256 tokenId
    ) external view returns (address owner) {
        owner = _positions[tokenId].owner;
        require(owner != address(0), "ERC721: owner query for nonexistent token");
    }

    function balanceOf(
        address owner
    ) external view returns (uint256) {
        return _owned[owner].length;
    }

    function tokenOfOwnerByIndex(
        address owner,
        uint256 index
    ) external view returns (uint256) {
        require(index < _owned[owner].length, "ERC721Enumerable: owner index out of bounds");
        return _owned[owner][index];
    }

    function mint(
        MintParams calldata p
    ) external payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1) {
        require(uint160(p.token0) < uint160(p.token1), "token order");
        require(p.tickLower < p.tickUpper, "TLU");
        (amount0, amount1) = (p.amount0Desired, p.amount1Desired);
        require(amount0 + amount1 > 0 && amount0 + amount1 <= type(uint128).max, "amounts");
        require(amount0 >= p.amount0Min && amount1 >= p.amount1Min, "Price slippage check");
        if (getPool[p.token0][p.token1][p.fee] == address(0)) _createPool(p.token0, p.token1, p.fee, amount0, amount1);
        require(IERC20(p.token0).transferFrom(msg.sender, address(this), amount0), "token0");
        require(IERC20(p.token1).transferFrom(msg.sender, address(this), amount1), "token1");
        tokenId = nextId++;
        // forge-lint: disable-next-line(unsafe-typecast) -- the sum is checked to fit above
        liquidity = uint128(amount0 + amount1);
        _positions[tokenId] =
            Position(p.recipient, p.token0, p.token1, p.fee, p.tickLower, p.tickUpper, liquidity, amount0, amount1, 0, 0);
        _owned[p.recipient].push(tokenId);
        emit Transfer(address(0), p.recipient, tokenId);
        emit IncreaseLiquidity(tokenId, liquidity, amount0, amount1);
    }

    function decreaseLiquidity(
        DecreaseLiquidityParams calldata p
    ) external payable returns (uint256 amount0, uint256 amount1) {
        Position storage pos = _positions[p.tokenId];
        require(msg.sender == pos.owner, "Not approved");
        // forge-lint: disable-next-line(block-timestamp) -- the deadline is in seconds, as the real manager's
        require(block.timestamp <= p.deadline, "Transaction too old");
        require(p.liquidity > 0 && p.liquidity <= pos.liquidity, "liquidity");
        amount0 = pos.amount0 * p.liquidity / pos.liquidity;
        amount1 = pos.amount1 * p.liquidity / pos.liquidity;
        require(amount0 >= p.amount0Min && amount1 >= p.amount1Min, "Price slippage check");
        pos.liquidity -= p.liquidity;
        pos.amount0 -= amount0;
        pos.amount1 -= amount1;
        // forge-lint: disable-next-line(unsafe-typecast) -- a part of amounts whose sum fits 128 bits
        pos.owed0 += uint128(amount0);
        // forge-lint: disable-next-line(unsafe-typecast) -- a part of amounts whose sum fits 128 bits
        pos.owed1 += uint128(amount1);
        emit DecreaseLiquidity(p.tokenId, p.liquidity, amount0, amount1);
    }

    function collect(
        CollectParams calldata p
    ) external payable returns (uint256 amount0, uint256 amount1) {
        Position storage pos = _positions[p.tokenId];
        require(msg.sender == pos.owner, "Not approved");
        amount0 = pos.owed0 < p.amount0Max ? pos.owed0 : p.amount0Max;
        amount1 = pos.owed1 < p.amount1Max ? pos.owed1 : p.amount1Max;
        // forge-lint: disable-next-line(unsafe-typecast) -- at most the owed amount, a uint128
        pos.owed0 -= uint128(amount0);
        // forge-lint: disable-next-line(unsafe-typecast) -- at most the owed amount, a uint128
        pos.owed1 -= uint128(amount1);
        require(IERC20(pos.token0).transfer(p.recipient, amount0), "token0");
        require(IERC20(pos.token1).transfer(p.recipient, amount1), "token1");
        emit Collect(p.tokenId, p.recipient, amount0, amount1);
    }

    function _createPool(
        address token0,
        address token1,
        uint24 fee,
        uint256 amount0,
        uint256 amount1
    ) private {
        uint160 sqrtPriceX96 = _sqrtPriceX96Of(amount0, amount1);
        address pool = address(new TestUniswapV3Pool(token0, token1, fee, sqrtPriceX96));
        getPool[token0][token1][fee] = pool;
        getPool[token1][token0][fee] = pool;
        emit PoolCreated(token0, token1, fee, 0, pool);
    }

    /// @notice floor(sqrt(amount1 * 2**192 / amount0)): the Q64.96 square root of the price amount1/amount0
    ///         (token1 base units per token0 base unit). Reverts on a zero amount or a price of 2**64 or more.
    function _sqrtPriceX96Of(
        uint256 amount0,
        uint256 amount1
    ) private pure returns (uint160) {
        require(amount0 > 0 && amount1 > 0, "amounts");
        require(amount1 < 2 ** 160 && amount1 / amount0 < 2 ** 64, "price");
        uint256 ratioX192 = amount1 < 2 ** 64 ? (amount1 << 192) / amount0 : ((amount1 << 96) / amount0) << 96;
        return uint160(_sqrt(ratioX192));
    }

    function _sqrt(
        uint256 x
    ) private pure returns (uint256 r) {
        if (x == 0) return 0;
        r = x;
        uint256 y = (x >> 1) + 1;
        while (y < r) {
            r = y;
            y = (x / y + y) >> 1;
        }
    }
}
