// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { ExecutionLib } from "../libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../libraries/UsdValuation.sol";
import { SequencerUptimeCheck } from "./SequencerUptimeCheck.sol";

/// @title ReplicantBudgetEnforcer
/// @notice A Replicant (child agent) can neither outspend nor outlive its allocation: cumulative USD spend
///         over the delegation's life is capped, and the delegation dies maxLifespanSeconds after its
///         first redemption. On an L2, nothing is priced while the sequencer is down or in its grace period.
/// @dev Terms: abi.encode(uint256 maxBudgetUsd, uint64 maxLifespanSeconds, uint32 maxPriceAge,
///      TokenFeed[] feeds), USD in 6 decimals. State is one slot per (msg.sender = DelegationManager,
///      delegationHash): activation time and USD spent. The redemption at exactly expiresAt is the last one
///      allowed. Try-mode is refused. Budgets above type(uint192).max are treated as type(uint192).max
///      (the width of the packed spend counter; about 6e51 USD).
contract ReplicantBudgetEnforcer is CaveatEnforcer, SequencerUptimeCheck {
    struct Replicant {
        uint64 activatedAt; // 0 until the first redemption
        uint192 spentUsd;
    }

    error ReplicantExpired(uint256 current, uint256 expiresAt);
    error ReplicantBudgetExceeded(uint256 spentUsd, uint256 requestedUsd, uint256 maxBudgetUsd);

    event ReplicantActivated(
        address indexed delegationManager, bytes32 indexed delegationHash, uint256 activatedAt, uint256 expiresAt
    );
    event ReplicantSpend(
        address indexed delegationManager,
        bytes32 indexed delegationHash,
        uint256 amountUsd,
        uint256 spentUsd,
        uint256 maxBudgetUsd
    );

    /// @notice Activation time and cumulative USD6 spend per DelegationManager and delegation hash.
    mapping(address delegationManager => mapping(bytes32 delegationHash => Replicant)) public replicants;

    /// @param sequencerUptimeFeed_ The chain's L2 sequencer uptime feed (zero: none, no check).
    /// @param sequencerGracePeriod_ Seconds after the sequencer returns during which prices are refused.
    constructor(
        address sequencerUptimeFeed_,
        uint256 sequencerGracePeriod_
    ) SequencerUptimeCheck(sequencerUptimeFeed_, sequencerGracePeriod_) { }

    /// @notice Starts the lifespan on first use, refuses expired Replicants, and records spend against the
    ///         lifetime budget.
    /// @dev Reverts ReplicantExpired, ReplicantBudgetExceeded, StalePrice, InvalidPrice, UnpricedAsset,
    ///      SequencerDown, SequencerGracePeriodNotOver (only when something is priced), UnsupportedExecType,
    ///      UnsupportedCallType, InvalidTermsLength or InvalidTokenFeed.
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
        (uint256 budget, uint64 lifespan, uint32 maxPriceAge, TokenFeed[] memory feeds) = _decodeTerms(terms);

        Replicant memory r = replicants[msg.sender][delegationHash];
        bool activating = r.activatedAt == 0;
        if (activating) {
            r.activatedAt = uint64(block.timestamp);
            emit ReplicantActivated(msg.sender, delegationHash, block.timestamp, block.timestamp + lifespan);
            // forge-lint: disable-next-line(block-timestamp) -- a lifespan in seconds is the rule itself
        } else if (block.timestamp > uint256(r.activatedAt) + lifespan) {
            revert ReplicantExpired(block.timestamp, uint256(r.activatedAt) + lifespan);
        }

        uint256 usd = UsdValuation.valueOf(ExecutionLib.decode(mode, executionCallData), feeds, maxPriceAge);
        if (usd != 0) {
            _requireSequencerUp();
            uint256 cap = budget > type(uint192).max ? type(uint192).max : budget;
            uint256 spent = r.spentUsd;
            if (spent > cap || usd > cap - spent) revert ReplicantBudgetExceeded(spent, usd, budget);
            unchecked {
                spent += usd; // <= cap <= type(uint192).max
            }
            // forge-lint: disable-next-line(unsafe-typecast) -- spent <= cap <= type(uint192).max
            r.spentUsd = uint192(spent);
            emit ReplicantSpend(msg.sender, delegationHash, usd, spent, budget);
        } else if (!activating) {
            return; // nothing changed
        }
        replicants[msg.sender][delegationHash] = r;
    }

    /// @notice Decodes terms exactly as the hook does; reverts InvalidTermsLength / InvalidTokenFeed.
    function getTermsInfo(
        bytes calldata terms
    ) public pure returns (uint256 maxBudgetUsd, uint64 maxLifespanSeconds, uint32 maxPriceAge, TokenFeed[] memory feeds) {
        return _decodeTerms(terms);
    }

    /// @notice Budget and time left. Before the first redemption: the whole budget and lifespan. At
    ///         expiresAt: (budget left, 0), the last usable second. After it: (0, 0).
    function remaining(
        address delegationManager,
        bytes32 delegationHash,
        bytes calldata terms
    ) external view returns (uint256 remainingUsd, uint256 remainingSeconds) {
        (uint256 budget, uint64 lifespan,,) = _decodeTerms(terms);
        Replicant memory r = replicants[delegationManager][delegationHash];
        uint256 cap = budget > type(uint192).max ? type(uint192).max : budget;
        remainingUsd = r.spentUsd >= cap ? 0 : cap - r.spentUsd;
        if (r.activatedAt == 0) return (remainingUsd, lifespan);
        uint256 expiresAt = uint256(r.activatedAt) + lifespan;
        // forge-lint: disable-next-line(block-timestamp) -- a lifespan in seconds is the rule itself
        if (block.timestamp > expiresAt) return (0, 0);
        remainingSeconds = expiresAt - block.timestamp;
    }

    function _decodeTerms(
        bytes calldata terms
    ) private pure returns (uint256 budget, uint64 lifespan, uint32 maxPriceAge, TokenFeed[] memory feeds) {
        UsdValuation.requireFeedsLayout(terms, 4);
        (budget, lifespan, maxPriceAge, feeds) = abi.decode(terms, (uint256, uint64, uint32, TokenFeed[]));
        UsdValuation.validateFeeds(feeds);
    }
}
