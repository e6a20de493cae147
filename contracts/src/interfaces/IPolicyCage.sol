// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @notice The on-chain record of each Golem's constitution: the keccak256 of its canonical ABI
///         encoding (core/policy/constitutionHash.ts), which a Golem's runtime compares with the
///         constitution it was given before it starts.
interface IPolicyCage {
    event ConstitutionSet(address indexed golem, bytes32 previousHash, bytes32 constitutionHash, address indexed by);

    error ZeroAddress();
    error EmptyConstitution();
    error NotOracleOwner(address caller, address owner);
    error GolemNotRegistered(address golem);
    error NoConstitution(address golem);

    /// @return The Golem's constitution hash, zero when none was set.
    function constitutionHash(
        address golem
    ) external view returns (bytes32);

    /// @return constitutionHash_ the Golem's constitution hash, setAt when it was set (0 when never).
    function getConstitution(
        address golem
    ) external view returns (bytes32 constitutionHash_, uint64 setAt);
}
