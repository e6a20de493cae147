// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IPriceFeed } from "../interfaces/IPriceFeed.sol";

/// @title MockPriceFeed
/// @notice A Chainlink AggregatorV3-compatible price feed whose answer tests set. LOCAL ONLY: never deploy
///         to a real chain.
/// @dev Every update opens a new round (roundId + 1) and keeps the old ones for getRoundData, as a real
///      aggregator does. setRoundData lets tests backdate a round to exercise staleness checks. Anyone may
///      set the answer: it is a local fixture, and devnet scripts set prices from whichever key they hold.
contract MockPriceFeed is IPriceFeed {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    error NoDataPresent(uint80 roundId);

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    uint8 public immutable decimals;
    string public description;
    uint256 public constant version = 4;
    uint80 public latestRound;

    mapping(uint80 roundId => Round) private _rounds;

    constructor(
        uint8 decimals_,
        int256 answer,
        string memory description_
    ) {
        decimals = decimals_;
        description = description_;
        _push(answer, block.timestamp);
    }

    /// @notice Opens a new round with `answer`, updated now.
    function setAnswer(
        int256 answer
    ) external {
        _push(answer, block.timestamp);
    }

    /// @notice Opens a new round with `answer` and an explicit updatedAt (may be in the past or future).
    function setRoundData(
        int256 answer,
        uint256 updatedAt
    ) external {
        _push(answer, updatedAt);
    }

    /// @notice The newest round, in the AggregatorV3 shape.
    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }

    /// @notice A past round, in the AggregatorV3 shape; reverts NoDataPresent for an unknown round.
    function getRoundData(
        uint80 roundId
    ) public view returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) {
        Round memory r = _rounds[roundId];
        if (roundId == 0 || roundId > latestRound) revert NoDataPresent(roundId);
        return (roundId, r.answer, r.startedAt, r.updatedAt, roundId);
    }

    /// @notice The newest answer (AggregatorV2 surface).
    function latestAnswer() external view returns (int256) {
        return _rounds[latestRound].answer;
    }

    function _push(
        int256 answer,
        uint256 updatedAt
    ) private {
        uint80 id = ++latestRound;
        _rounds[id] = Round(answer, updatedAt, updatedAt);
        emit AnswerUpdated(answer, id, updatedAt);
    }
}
