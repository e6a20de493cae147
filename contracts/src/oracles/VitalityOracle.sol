// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IVitalityOracle } from "../interfaces/IVitalityOracle.sol";
import { Ownable2Step } from "../access/Ownable2Step.sol";

/// @title VitalityOracle
/// @notice The on-chain record of each Golem's behavioral phase, read by GolemPhaseEnforcer on every
///         redemption. Guarantees: a Golem's own key can only move its phase forward (Thriving 0 ->
///         Terminal 4); only the owner (operator key) can move it back, through the evented
///         `resetPhase`; a deregistered or rotated-away key is dead and can never be registered again, so a
///         phase never restarts at Thriving under the same key. The owner role moves in two steps
///         (Ownable2Step), and is a different key from GolemPhaseEnforcer's table owner.
/// @dev The whole GolemState packs into one storage slot, so `getPhase` costs one cold SLOAD.
contract VitalityOracle is IVitalityOracle, Ownable2Step {
    uint8 internal constant MAX_PHASE = 4;
    uint16 internal constant MAX_SURVIVAL_SCORE = 10_000;

    mapping(address golem => GolemState) private _golems;

    /// @param owner_ The operator key allowed to register, reset, rotate and deregister Golems.
    /// @dev Reverts `ZeroAddress`.
    constructor(
        address owner_
    ) Ownable2Step(owner_) {
        if (owner_ == address(0)) revert ZeroAddress();
    }

    /// @notice Registers a Golem key at Thriving with survival score 10000.
    /// @dev Reverts `ZeroAddress`, `GolemIsDead` (keys are single-life), `GolemAlreadyRegistered`.
    function registerGolem(
        address golem
    ) external onlyOwner {
        if (golem == address(0)) revert ZeroAddress();
        GolemState storage state = _golems[golem];
        if (state.dead) revert GolemIsDead(golem);
        if (state.registered) revert GolemAlreadyRegistered(golem);
        uint64 now_ = uint64(block.timestamp);
        _golems[golem] = GolemState({
            phase: 0, registered: true, dead: false, survivalScore: MAX_SURVIVAL_SCORE, lastUpdated: now_, registeredAt: now_
        });
        emit GolemRegistered(golem, msg.sender);
    }

    /// @notice The Golem's heartbeat: reports its phase and survival score. The phase can only stay or
    ///         move forward.
    /// @dev Keyed by msg.sender, so a key only ever writes its own state. Reverts `GolemNotRegistered`
    ///      (unregistered or dead key), `InvalidPhase` (> 4), `InvalidSurvivalScore` (> 10000),
    ///      `PhaseNotMonotonic(current, proposed)`.
    function updatePhase(
        uint8 newPhase,
        uint16 survivalScore
    ) external {
        GolemState storage state = _golems[msg.sender];
        if (!state.registered) revert GolemNotRegistered(msg.sender);
        if (newPhase > MAX_PHASE) revert InvalidPhase(newPhase);
        if (survivalScore > MAX_SURVIVAL_SCORE) revert InvalidSurvivalScore(survivalScore);
        uint8 current = state.phase;
        if (newPhase < current) revert PhaseNotMonotonic(current, newPhase);

        state.phase = newPhase;
        state.survivalScore = survivalScore;
        state.lastUpdated = uint64(block.timestamp);

        emit VitalityReported(msg.sender, newPhase, survivalScore);
        if (newPhase != current) emit PhaseTransition(msg.sender, current, newPhase, survivalScore);
    }

    /// @notice The audited exception to monotonicity (Feed-the-Golem restored the runway, or an operator
    ///         correction): the owner sets any phase, with a reason that is kept in the event log.
    /// @dev Reverts `InvalidPhase`, `EmptyReason`, `GolemNotRegistered`. The survival score is left
    ///      as last reported; the Golem's next heartbeat refreshes it.
    function resetPhase(
        address golem,
        uint8 newPhase,
        string calldata reason
    ) external onlyOwner {
        if (newPhase > MAX_PHASE) revert InvalidPhase(newPhase);
        if (bytes(reason).length == 0) revert EmptyReason();
        GolemState storage state = _golems[golem];
        if (!state.registered) revert GolemNotRegistered(golem);
        uint8 from = state.phase;
        state.phase = newPhase;
        state.lastUpdated = uint64(block.timestamp);
        emit PhaseReset(golem, from, newPhase, msg.sender, reason);
    }

    /// @notice Moves a Golem to a new session key: `to` inherits `from`'s phase, score and registration
    ///         time; `from` becomes dead and can never be registered again.
    /// @dev Reverts `ZeroAddress`, `GolemNotRegistered(from)`, `GolemIsDead(to)`, `GolemAlreadyRegistered(to)`.
    function rotateGolemKey(
        address from,
        address to
    ) external onlyOwner {
        if (to == address(0)) revert ZeroAddress();
        GolemState memory state = _golems[from];
        if (!state.registered) revert GolemNotRegistered(from);
        GolemState storage next = _golems[to];
        if (next.dead) revert GolemIsDead(to);
        if (next.registered) revert GolemAlreadyRegistered(to);

        state.lastUpdated = uint64(block.timestamp);
        _golems[to] = state;
        _golems[from].registered = false;
        _golems[from].dead = true;
        emit GolemKeyRotated(from, to);
    }

    /// @notice Marks a Golem dead (death protocol): every GolemPhase caveat naming it fails from now on.
    /// @dev Reverts `GolemNotRegistered`. The final phase stays readable through `getState`.
    function deregisterGolem(
        address golem
    ) external onlyOwner {
        GolemState storage state = _golems[golem];
        if (!state.registered) revert GolemNotRegistered(golem);
        state.registered = false;
        state.dead = true;
        state.lastUpdated = uint64(block.timestamp);
        emit GolemDeregistered(golem, state.phase);
    }

    /// @notice What enforcers read: whether the Golem is registered and alive, and its phase.
    function getPhase(
        address golem
    ) external view returns (bool registered, uint8 phase) {
        GolemState storage state = _golems[golem];
        return (state.registered, state.phase);
    }

    /// @notice The full record (dashboards, indexer backfills). A dead Golem keeps its final phase.
    function getState(
        address golem
    ) external view returns (GolemState memory) {
        return _golems[golem];
    }
}
