// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IPolicyCage } from "../interfaces/IPolicyCage.sol";
import { IVitalityOracle } from "../interfaces/IVitalityOracle.sol";
import { Ownable2Step } from "../access/Ownable2Step.sol";

/// @title PolicyCage
/// @notice The on-chain hash of each Golem's constitution. Guarantees: only the VitalityOracle's owner
///         (the operator key that registers Golems) sets a hash, only for a Golem the oracle holds
///         registered, never to zero; every change is evented with the hash it replaced. Ownership is
///         read from the oracle on each call, so it moves with the oracle's Ownable2Step transfer.
/// @dev One slot per Golem key: the hash, and the time it was set in a second slot. A rotated key
///      takes its old key's hash through `carryConstitution`.
contract PolicyCage is IPolicyCage {
    struct Record {
        bytes32 hash;
        uint64 setAt;
    }

    IVitalityOracle public immutable vitalityOracle;

    mapping(address golem => Record) private _constitutions;

    /// @dev Reverts `ZeroAddress`.
    constructor(
        IVitalityOracle vitalityOracle_
    ) {
        if (address(vitalityOracle_) == address(0)) revert ZeroAddress();
        vitalityOracle = vitalityOracle_;
    }

    /// @notice Sets the Golem's constitution hash.
    /// @dev Reverts `NotOracleOwner(caller, owner)`, `EmptyConstitution`, `GolemNotRegistered(golem)`.
    function setConstitution(
        address golem,
        bytes32 constitutionHash_
    ) external {
        address owner_ = Ownable2Step(address(vitalityOracle)).owner();
        if (msg.sender != owner_) revert NotOracleOwner(msg.sender, owner_);
        if (constitutionHash_ == bytes32(0)) revert EmptyConstitution();
        (bool registered,) = vitalityOracle.getPhase(golem);
        if (!registered) revert GolemNotRegistered(golem);
        bytes32 previous = _constitutions[golem].hash;
        _constitutions[golem] = Record({ hash: constitutionHash_, setAt: uint64(block.timestamp) });
        emit ConstitutionSet(golem, previous, constitutionHash_, msg.sender);
    }

    /// @notice Carries a Golem's constitution hash from its rotated-away key to its new one, unchanged: a
    ///         key rotation keeps the owner's constitution without anyone restating it.
    /// @dev Reverts `NotOracleOwner(caller, owner)`, `GolemNotRegistered(to)`, `NoConstitution(from)`.
    function carryConstitution(
        address from,
        address to
    ) external {
        address owner_ = Ownable2Step(address(vitalityOracle)).owner();
        if (msg.sender != owner_) revert NotOracleOwner(msg.sender, owner_);
        (bool registered,) = vitalityOracle.getPhase(to);
        if (!registered) revert GolemNotRegistered(to);
        bytes32 carried = _constitutions[from].hash;
        if (carried == bytes32(0)) revert NoConstitution(from);
        bytes32 previous = _constitutions[to].hash;
        _constitutions[to] = Record({ hash: carried, setAt: uint64(block.timestamp) });
        emit ConstitutionSet(to, previous, carried, msg.sender);
    }

    /// @inheritdoc IPolicyCage
    function constitutionHash(
        address golem
    ) external view returns (bytes32) {
        return _constitutions[golem].hash;
    }

    /// @inheritdoc IPolicyCage
    function getConstitution(
        address golem
    ) external view returns (bytes32 constitutionHash_, uint64 setAt) {
        Record storage r = _constitutions[golem];
        return (r.hash, r.setAt);
    }
}
