// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { UsdValuation } from "../libraries/UsdValuation.sol";

/// @title SequencerUptimeCheck
/// @notice For the enforcers that value spend in USD: on an L2, no price is used while the sequencer is
///         down or within its grace period after it returns (UsdValuation.requireSequencerUp).
/// @dev The uptime feed is a property of the chain, not of a delegation, so it is fixed at deployment and
///      the terms layouts stay as they are. The zero address (an L1, a local chain) turns the check off.
abstract contract SequencerUptimeCheck {
    /// @notice Chainlink's L2 sequencer uptime feed, or the zero address when the chain has none.
    address public immutable sequencerUptimeFeed;
    /// @notice Seconds after the sequencer comes back during which prices are still refused.
    uint256 public immutable sequencerGracePeriod;

    constructor(
        address sequencerUptimeFeed_,
        uint256 sequencerGracePeriod_
    ) {
        sequencerUptimeFeed = sequencerUptimeFeed_;
        sequencerGracePeriod = sequencerGracePeriod_;
    }

    function _requireSequencerUp() internal view {
        UsdValuation.requireSequencerUp(sequencerUptimeFeed, sequencerGracePeriod);
    }
}
