// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IERC20 } from "../interfaces/IERC20.sol";

/// @title TestPositionManager
/// @notice A Uniswap V3 NonfungiblePositionManager-shaped contract for tests: mint (0x88316456),
///         decreaseLiquidity (0x0c49ccbe) and collect (0xfc6f7865) with the real parameter structs, so a
///         grant is tried against the real calldata. LOCAL ONLY: never deploy to a real chain.
/// @dev There is no pool and no price: a position's liquidity is amount0 + amount1 as deposited, and
///      decreasing it owes both tokens back pro rata, checked against the minimums as the real manager
///      does ("Price slippage check"). Only a position's owner may decrease or collect it.
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
        uint128 liquidity;
        uint256 amount0;
        uint256 amount1;
        uint256 owed0;
        uint256 owed1;
    }

    mapping(uint256 tokenId => Position) public positions;
    uint256 public nextId = 1;

    event IncreaseLiquidity(uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
    event DecreaseLiquidity(uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
    event Collect(uint256 indexed tokenId, address recipient, uint256 amount0, uint256 amount1);

    function mint(
        MintParams calldata p
    ) external payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1) {
        (amount0, amount1) = (p.amount0Desired, p.amount1Desired);
        require(amount0 >= p.amount0Min && amount1 >= p.amount1Min, "Price slippage check");
        require(IERC20(p.token0).transferFrom(msg.sender, address(this), amount0), "token0");
        require(IERC20(p.token1).transferFrom(msg.sender, address(this), amount1), "token1");
        tokenId = nextId++;
        liquidity = uint128(amount0 + amount1);
        positions[tokenId] = Position(p.recipient, p.token0, p.token1, liquidity, amount0, amount1, 0, 0);
        emit IncreaseLiquidity(tokenId, liquidity, amount0, amount1);
    }

    function decreaseLiquidity(
        DecreaseLiquidityParams calldata p
    ) external payable returns (uint256 amount0, uint256 amount1) {
        Position storage pos = positions[p.tokenId];
        require(msg.sender == pos.owner, "Not approved");
        require(p.liquidity <= pos.liquidity, "liquidity");
        amount0 = pos.amount0 * p.liquidity / pos.liquidity;
        amount1 = pos.amount1 * p.liquidity / pos.liquidity;
        require(amount0 >= p.amount0Min && amount1 >= p.amount1Min, "Price slippage check");
        pos.liquidity -= p.liquidity;
        pos.amount0 -= amount0;
        pos.amount1 -= amount1;
        pos.owed0 += amount0;
        pos.owed1 += amount1;
        emit DecreaseLiquidity(p.tokenId, p.liquidity, amount0, amount1);
    }

    function collect(
        CollectParams calldata p
    ) external payable returns (uint256 amount0, uint256 amount1) {
        Position storage pos = positions[p.tokenId];
        require(msg.sender == pos.owner, "Not approved");
        amount0 = pos.owed0 < p.amount0Max ? pos.owed0 : p.amount0Max;
        amount1 = pos.owed1 < p.amount1Max ? pos.owed1 : p.amount1Max;
        pos.owed0 -= amount0;
        pos.owed1 -= amount1;
        require(IERC20(pos.token0).transfer(p.recipient, amount0), "token0");
        require(IERC20(pos.token1).transfer(p.recipient, amount1), "token1");
        emit Collect(p.tokenId, p.recipient, amount0, amount1);
    }
}
