// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";

/// @title MortalityTimeWindowEnforcer
/// @notice Ties a delegation to the Golem's projected lifespan: nothing executes before `startTime` or
///         after `endTime` (inclusive window). Feed-the-Golem extends a life by re-signing a delegation
///         with a later `endTime`, never by changing this one.
/// @dev Terms: `abi.encode(uint256 startTime, uint256 endTime)` (64 bytes), unix seconds,
///      `endTime > startTime`. Stateless.
contract MortalityTimeWindowEnforcer is CaveatEnforcer {
    error InvalidTermsLength(uint256 length);
    error InvalidWindow(uint256 startTime, uint256 endTime);
    error DelegationNotYetActive(uint256 current, uint256 startTime);
    error DelegationExpired(uint256 current, uint256 endTime);

    /// @notice Refuses the execution outside `[startTime, endTime]`.
    /// @dev Terms: `abi.encode(uint256 startTime, uint256 endTime)`. Reverts `InvalidTermsLength`,
    ///      `InvalidWindow`, `DelegationNotYetActive(now, start)`, `DelegationExpired(now, end)`.
    function beforeHook(
        bytes calldata terms,
        bytes calldata,
        bytes32,
        bytes calldata,
        bytes32,
        address,
        address
    ) public view override {
        (uint256 startTime, uint256 endTime) = getTermsInfo(terms);
        // A lifespan window is a timestamp rule by design; seconds of validator drift do not matter here.
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp < startTime) revert DelegationNotYetActive(block.timestamp, startTime);
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > endTime) revert DelegationExpired(block.timestamp, endTime);
    }

    /// @notice Decodes the window.
    /// @dev Reverts `InvalidTermsLength` unless 64 bytes, `InvalidWindow` unless `endTime > startTime`.
    function getTermsInfo(
        bytes calldata terms
    ) public pure returns (uint256 startTime, uint256 endTime) {
        if (terms.length != 64) revert InvalidTermsLength(terms.length);
        startTime = uint256(bytes32(terms[0:32]));
        endTime = uint256(bytes32(terms[32:64]));
        if (endTime <= startTime) revert InvalidWindow(startTime, endTime);
    }

    /// @notice Seconds until the window closes (`endTime - now`), 0 once expired. Before `startTime` this
    ///         still counts to `endTime`; at `now == endTime` it is 0 though that second is still valid.
    function timeRemaining(
        bytes calldata terms
    ) external view returns (uint256) {
        (, uint256 endTime) = getTermsInfo(terms);
        // forge-lint: disable-next-line(block-timestamp)
        return block.timestamp >= endTime ? 0 : endTime - block.timestamp;
    }
}
