// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @notice Behavioral phases, in the only order a Golem may move through them.
/// Thriving 0, Stable 1, Conservation 2, Declining 3, Terminal 4.
interface IVitalityOracle {
    struct GolemState {
        uint8 phase;
        bool registered;
        bool dead;
        uint16 survivalScore; // basis points, 10000 = 1.0
        uint64 lastUpdated;
        uint64 registeredAt;
    }

    event GolemRegistered(address indexed golem, address indexed registrar);
    event GolemDeregistered(address indexed golem, uint8 finalPhase);
    event PhaseTransition(address indexed golem, uint8 fromPhase, uint8 toPhase, uint16 survivalScore);
    event VitalityReported(address indexed golem, uint8 phase, uint16 survivalScore);
    event PhaseReset(address indexed golem, uint8 fromPhase, uint8 toPhase, address indexed by, string reason);
    event GolemKeyRotated(address indexed from, address indexed to);

    error ZeroAddress();
    error GolemNotRegistered(address golem);
    error GolemAlreadyRegistered(address golem);
    error GolemIsDead(address golem);
    error InvalidPhase(uint8 phase);
    error InvalidSurvivalScore(uint16 survivalScore);
    error PhaseNotMonotonic(uint8 current, uint8 proposed);
    error EmptyReason();

    /// @return registered whether the Golem is registered (and not dead), phase its current phase.
    function getPhase(
        address golem
    ) external view returns (bool registered, uint8 phase);
    function getState(
        address golem
    ) external view returns (GolemState memory);
}
