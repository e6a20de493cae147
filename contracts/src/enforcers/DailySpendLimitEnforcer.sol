// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { ExecutionLib, Execution } from "../libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../libraries/UsdValuation.sol";
import { SequencerUptimeCheck } from "./SequencerUptimeCheck.sol";

/// @title DailySpendLimitEnforcer
/// @notice Caps the USD value a delegation can move out of the owner's account per UTC day, across native
///         ETH and every listed ERC-20, priced with Chainlink-style feeds that must be fresh (and, on an L2,
///         only while the sequencer is up and past its grace period).
/// @dev Terms: abi.encode(uint256 dailyLimitUsd, uint32 maxPriceAge, TokenFeed[] feeds), USD in 6 decimals.
///      Day = block.timestamp / 86400: a calendar UTC day, not a rolling 24 hours, so up to twice the limit
///      can move within minutes across midnight (the limit before 00:00 and again after it). Spend is recorded in beforeHook, keyed by
///      (msg.sender = DelegationManager, delegationHash) in one slot holding (day, spent): a new day
///      overwrites the old one, which costs ~5k gas instead of ~22k for a fresh slot per day. So spentOn is
///      exact for today and later days; earlier days live in SpendRecorded events. Limits above
///      type(uint192).max act as type(uint192).max. Try-mode is refused: a try-mode execution could fail
///      after it was counted. Valuation rules: UsdValuation and docs/contracts.md.
contract DailySpendLimitEnforcer is CaveatEnforcer, SequencerUptimeCheck {
    struct DailySpend {
        uint64 day;
        uint192 spentUsd;
    }

    error DailySpendLimitExceeded(uint256 day, uint256 spentUsd, uint256 requestedUsd, uint256 limitUsd);

    event SpendRecorded(
        address indexed delegationManager,
        bytes32 indexed delegationHash,
        uint256 day,
        uint256 amountUsd,
        uint256 spentTodayUsd,
        uint256 dailyLimitUsd
    );

    mapping(address delegationManager => mapping(bytes32 delegationHash => DailySpend)) private _spends;

    /// @param sequencerUptimeFeed_ The chain's L2 sequencer uptime feed (zero: none, no check).
    /// @param sequencerGracePeriod_ Seconds after the sequencer returns during which prices are refused.
    constructor(
        address sequencerUptimeFeed_,
        uint256 sequencerGracePeriod_
    ) SequencerUptimeCheck(sequencerUptimeFeed_, sequencerGracePeriod_) { }

    /// @notice USD6 recorded for a delegation on a UTC day. Exact for the day of the latest spend and any
    ///         later day (0); an earlier day reads 0 (see SpendRecorded events for history).
    function spentOn(
        address delegationManager,
        bytes32 delegationHash,
        uint256 day
    ) public view returns (uint256) {
        DailySpend memory s = _spends[delegationManager][delegationHash];
        return s.day == day ? s.spentUsd : 0;
    }

    /// @notice Values the redemption and records it against today's limit, or reverts with the numbers.
    /// @dev Reverts DailySpendLimitExceeded, StalePrice, InvalidPrice, UnpricedAsset, SequencerDown,
    ///      SequencerGracePeriodNotOver, UnsupportedExecType, UnsupportedCallType, InvalidTermsLength or
    ///      InvalidTokenFeed. A redemption worth 0 writes nothing (and needs no sequencer).
    function beforeHook(
        bytes calldata terms,
        bytes calldata,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32 delegationHash,
        address,
        address
    ) public override {
        ExecutionLib.requireDefaultExec(mode);
        (uint256 limit, uint32 maxPriceAge, TokenFeed[] memory feeds) = _decodeTerms(terms);
        uint256 usd = UsdValuation.valueOf(ExecutionLib.decode(mode, executionCallData), feeds, maxPriceAge);
        if (usd == 0) return;
        _requireSequencerUp();

        uint256 day = block.timestamp / 1 days;
        DailySpend memory s = _spends[msg.sender][delegationHash];
        uint256 spent = s.day == day ? s.spentUsd : 0;
        uint256 cap = limit > type(uint192).max ? type(uint192).max : limit;
        // spent > cap only if one delegation carries two of these caveats sharing the slot; still refuse.
        if (spent > cap || usd > cap - spent) revert DailySpendLimitExceeded(day, spent, usd, limit);
        unchecked {
            spent += usd; // <= cap
        }
        // forge-lint: disable-next-line(unsafe-typecast) -- day < 2**64 for any timestamp; spent <= cap <= type(uint192).max
        _spends[msg.sender][delegationHash] = DailySpend(uint64(day), uint192(spent));
        emit SpendRecorded(msg.sender, delegationHash, day, usd, spent, limit);
    }

    /// @notice Decodes terms exactly as the hook does; reverts InvalidTermsLength / InvalidTokenFeed.
    function getTermsInfo(
        bytes calldata terms
    ) public pure returns (uint256 dailyLimitUsd, uint32 maxPriceAge, TokenFeed[] memory feeds) {
        return _decodeTerms(terms);
    }

    /// @notice What is left today for this delegation and when the day rolls over (unix seconds).
    function remainingToday(
        address delegationManager,
        bytes32 delegationHash,
        bytes calldata terms
    ) external view returns (uint256 remainingUsd, uint256 resetsAt) {
        (uint256 limit,,) = _decodeTerms(terms);
        uint256 day = block.timestamp / 1 days;
        uint256 spent = spentOn(delegationManager, delegationHash, day);
        uint256 cap = limit > type(uint192).max ? type(uint192).max : limit;
        remainingUsd = spent >= cap ? 0 : cap - spent;
        resetsAt = (day + 1) * 1 days;
    }

    /// @notice Preview: the USD6 value the hook would record for this execution right now.
    /// @dev Reverts like the hook on stale or invalid prices and unpriced native value.
    function valueOf(
        bytes calldata terms,
        bytes32 mode,
        bytes calldata executionCallData
    ) external view returns (uint256 usd) {
        (, uint32 maxPriceAge, TokenFeed[] memory feeds) = _decodeTerms(terms);
        Execution[] memory executions = ExecutionLib.decode(mode, executionCallData);
        usd = UsdValuation.valueOf(executions, feeds, maxPriceAge);
        if (usd != 0) _requireSequencerUp();
    }

    function _decodeTerms(
        bytes calldata terms
    ) private pure returns (uint256 limit, uint32 maxPriceAge, TokenFeed[] memory feeds) {
        UsdValuation.requireFeedsLayout(terms, 3);
        (limit, maxPriceAge, feeds) = abi.decode(terms, (uint256, uint32, TokenFeed[]));
        UsdValuation.validateFeeds(feeds);
    }
}
