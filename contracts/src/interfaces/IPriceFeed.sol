// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @notice The Chainlink AggregatorV3 read surface the USD-valuing enforcers use.
interface IPriceFeed {
    function decimals() external view returns (uint8);
    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
}
