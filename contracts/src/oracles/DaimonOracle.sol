// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IDaimonOracle } from "../interfaces/IDaimonOracle.sol";

/// @title DaimonOracle
/// @notice On-chain projection of each Golem's affect (Pleasure, Arousal, Dominance), read by
///         EmotionalStateEnforcer. Guarantees: only a Golem's own key writes its vector (keyed by
///         msg.sender) and every component stays in [-100, 100].
/// @dev A Golem that never reported reads as neutral (0, 0, 0).
contract DaimonOracle is IDaimonOracle {
    int8 internal constant PAD_MIN = -100;
    int8 internal constant PAD_MAX = 100;

    struct PAD {
        int8 pleasure;
        int8 arousal;
        int8 dominance;
    }

    mapping(address golem => PAD) private _pad;

    /// @notice Records the caller's current affect vector.
    /// @dev Reverts `PADOutOfRange(p, a, d)` when any component is outside [-100, 100].
    function setPAD(
        int8 pleasure,
        int8 arousal,
        int8 dominance
    ) external {
        if (!_inRange(pleasure) || !_inRange(arousal) || !_inRange(dominance)) {
            revert PADOutOfRange(pleasure, arousal, dominance);
        }
        _pad[msg.sender] = PAD(pleasure, arousal, dominance);
        emit PADUpdated(msg.sender, pleasure, arousal, dominance);
    }

    /// @notice The Golem's last reported vector, (0, 0, 0) if it never reported.
    function getPAD(
        address golem
    ) external view returns (int8 pleasure, int8 arousal, int8 dominance) {
        PAD storage pad = _pad[golem];
        return (pad.pleasure, pad.arousal, pad.dominance);
    }

    function _inRange(
        int8 value
    ) private pure returns (bool) {
        return value >= PAD_MIN && value <= PAD_MAX;
    }
}
