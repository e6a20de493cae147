// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @notice Pleasure-Arousal-Dominance affect vector, each component in [-100, 100].
interface IDaimonOracle {
    event PADUpdated(address indexed golem, int8 pleasure, int8 arousal, int8 dominance);

    error PADOutOfRange(int8 pleasure, int8 arousal, int8 dominance);

    function getPAD(
        address golem
    ) external view returns (int8 pleasure, int8 arousal, int8 dominance);
}
