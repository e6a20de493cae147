// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { CaveatEnforcer } from "./CaveatEnforcer.sol";
import { ExecutionLib, Execution } from "../libraries/ExecutionLib.sol";
import { IDaimonOracle } from "../interfaces/IDaimonOracle.sol";

/// @title EmotionalStateEnforcer
/// @notice Refuses the delegation's high-risk calls (the restricted selectors) while the Golem's affect
///         (DaimonOracle PAD vector) is outside the configured bounds: pleasure below `minPleasure`,
///         arousal above `maxArousal` or dominance below `minDominance` (panic, despair). Other calls
///         always pass.
/// @dev Terms: `abi.encode(address golem, int8 minPleasure, int8 maxArousal, int8 minDominance,
///      bytes4[] restrictedSelectors)`, canonical encoding only (array at offset 0xa0, no trailing
///      bytes). Empty calldata has selector `bytes4(0)`. The oracle is read once per redemption and only
///      when a restricted selector is present. Stateless.
contract EmotionalStateEnforcer is CaveatEnforcer {
    uint256 private constant HEAD_LENGTH = 192; // five head words + the array length word
    uint256 private constant ARRAY_OFFSET = 160;

    IDaimonOracle public immutable daimonOracle;

    error ZeroAddress();
    error InvalidTermsLength(uint256 length);
    /// @notice A terms word is not canonically encoded: 4 is the array offset, 6 + i the i-th selector.
    error InvalidTermsEncoding(uint256 wordIndex);
    error EmotionalStateRestriction(int8 pleasure, int8 arousal, int8 dominance, bytes4 selector);

    struct Bounds {
        address golem;
        int8 minPleasure;
        int8 maxArousal;
        int8 minDominance;
        uint256 count;
    }

    /// @param daimonOracle_ The oracle the PAD vector is read from.
    constructor(
        address daimonOracle_
    ) {
        if (daimonOracle_ == address(0)) revert ZeroAddress();
        daimonOracle = IDaimonOracle(daimonOracle_);
    }

    /// @notice Refuses any restricted call while the Golem's PAD vector is out of bounds.
    /// @dev Terms: `abi.encode(address golem, int8 minPleasure, int8 maxArousal, int8 minDominance,
    ///      bytes4[] restrictedSelectors)`. Reverts `InvalidTermsLength`, `InvalidTermsEncoding`,
    ///      `EmotionalStateRestriction(p, a, d, selector)`, and ExecutionLib's call-type errors.
    function beforeHook(
        bytes calldata terms,
        bytes calldata,
        bytes32 mode,
        bytes calldata executionCallData,
        bytes32,
        address,
        address
    ) public view override {
        Bounds memory b = _decodeHead(terms);
        if (b.count == 0) return;

        bytes1 callType = ExecutionLib.callType(mode);
        if (callType == ExecutionLib.CALLTYPE_SINGLE) {
            (,, bytes calldata callData) = ExecutionLib.decodeSingle(executionCallData);
            bytes4 selector = callData.length >= 4 ? bytes4(callData[:4]) : bytes4(0);
            if (_listed(terms, b.count, selector)) _requireCalm(b, selector);
        } else if (callType == ExecutionLib.CALLTYPE_BATCH) {
            Execution[] memory executions = ExecutionLib.decodeBatch(executionCallData);
            for (uint256 i; i < executions.length; ++i) {
                bytes4 selector = ExecutionLib.selectorOf(executions[i].callData);
                // The first restricted call decides: the vector is the same for every call of the batch.
                if (_listed(terms, b.count, selector)) {
                    _requireCalm(b, selector);
                    return;
                }
            }
        } else {
            revert ExecutionLib.UnsupportedCallType(callType);
        }
    }

    /// @notice Decodes the terms.
    /// @dev Reverts `InvalidTermsLength` or `InvalidTermsEncoding` on a non-canonical encoding.
    function getTermsInfo(
        bytes calldata terms
    )
        public
        pure
        returns (address golem, int8 minPleasure, int8 maxArousal, int8 minDominance, bytes4[] memory restrictedSelectors)
    {
        Bounds memory b = _decodeHead(terms);
        restrictedSelectors = new bytes4[](b.count);
        for (uint256 i; i < b.count; ++i) {
            restrictedSelectors[i] = _selectorAt(terms, i);
        }
        return (b.golem, b.minPleasure, b.maxArousal, b.minDominance, restrictedSelectors);
    }

    /// @notice Whether a call with `selector` would be refused right now.
    function isRestricted(
        bytes calldata terms,
        bytes4 selector
    ) external view returns (bool) {
        Bounds memory b = _decodeHead(terms);
        if (!_listed(terms, b.count, selector)) return false;
        (int8 p, int8 a, int8 d) = daimonOracle.getPAD(b.golem);
        return _outOfBounds(b, p, a, d);
    }

    function _requireCalm(
        Bounds memory b,
        bytes4 selector
    ) private view {
        (int8 p, int8 a, int8 d) = daimonOracle.getPAD(b.golem);
        if (_outOfBounds(b, p, a, d)) revert EmotionalStateRestriction(p, a, d, selector);
    }

    function _outOfBounds(
        Bounds memory b,
        int8 p,
        int8 a,
        int8 d
    ) private pure returns (bool) {
        return p < b.minPleasure || a > b.maxArousal || d < b.minDominance;
    }

    function _listed(
        bytes calldata terms,
        uint256 count,
        bytes4 selector
    ) private pure returns (bool) {
        for (uint256 i; i < count; ++i) {
            if (_selectorAt(terms, i) == selector) return true;
        }
        return false;
    }

    function _selectorAt(
        bytes calldata terms,
        uint256 i
    ) private pure returns (bytes4) {
        uint256 at = HEAD_LENGTH + 32 * i;
        bytes32 word = bytes32(terms[at:at + 32]);
        if (uint256(word) << 32 != 0) revert InvalidTermsEncoding(6 + i);
        // The low 28 bytes were just checked to be zero.
        // forge-lint: disable-next-line(unsafe-typecast)
        return bytes4(word);
    }

    function _decodeHead(
        bytes calldata terms
    ) private pure returns (Bounds memory b) {
        uint256 length = terms.length;
        if (length < HEAD_LENGTH) revert InvalidTermsLength(length);
        uint256 golemWord = _word(terms, 0);
        if (golemWord >> 160 != 0) revert InvalidTermsEncoding(0);
        // forge-lint: disable-next-line(unsafe-typecast)
        b.golem = address(uint160(golemWord));
        b.minPleasure = _int8At(terms, 1);
        b.maxArousal = _int8At(terms, 2);
        b.minDominance = _int8At(terms, 3);
        if (_word(terms, 4) != ARRAY_OFFSET) revert InvalidTermsEncoding(4);
        uint256 count = _word(terms, 5);
        // Bounded by the length check below (count <= length / 32), so this cannot overflow.
        if (count > length / 32 || length != HEAD_LENGTH + 32 * count) revert InvalidTermsLength(length);
        b.count = count;
    }

    function _int8At(
        bytes calldata terms,
        uint256 index
    ) private pure returns (int8) {
        int256 value = int256(_word(terms, index));
        if (value < type(int8).min || value > type(int8).max) revert InvalidTermsEncoding(index);
        // forge-lint: disable-next-line(unsafe-typecast)
        return int8(value);
    }

    function _word(
        bytes calldata terms,
        uint256 index
    ) private pure returns (uint256) {
        return uint256(bytes32(terms[index * 32:index * 32 + 32]));
    }
}
