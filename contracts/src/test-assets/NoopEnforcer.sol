// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "../enforcers/CaveatEnforcer.sol";

/// @title NoopEnforcer
/// @notice A caveat that checks nothing: the baseline for measuring each enforcer's marginal gas
///         (what the DelegationManager spends just to call a caveat's four hooks). LOCAL ONLY.
contract NoopEnforcer is CaveatEnforcer { }
