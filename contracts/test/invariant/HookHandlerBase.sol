// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { Execution } from "../../src/libraries/ExecutionLib.sol";
import { ICaveatEnforcer } from "../../src/interfaces/ICaveatEnforcer.sol";

/// Shared plumbing for the invariant handlers of the stateless enforcers (VaultNAV, MaxSlippage,
/// EmotionalState, KnowledgeRoyalty): call beforeHook as the DelegationManager would, compare the outcome
/// with what the handler's own model says it must be, and count every disagreement. The models live in
/// the handlers and never call an enforcer; this base only runs the hook and reads calldata words.
abstract contract HookHandlerBase is Test {
    address internal constant MANAGER = address(0xDE1E);
    address internal constant DELEGATOR = address(0xA11CE);
    address internal constant REDEEMER = address(0xB0B);
    bytes32 internal constant HASH = keccak256("delegation");

    bytes1 internal constant SINGLE = 0x00;
    bytes1 internal constant BATCH = 0x01;
    bytes1 internal constant DEFAULT_EXEC = 0x00;
    bytes1 internal constant TRY_EXEC = 0x01;

    uint256 public calls;
    uint256 public accepted;
    uint256 public mismatches;
    string public lastMismatch;

    /// Runs the four hooks in the DelegationManager's order (beforeAllHook, beforeHook, the execution,
    /// afterHook, afterAllHook) and checks the outcome against `want`: empty means the model accepts,
    /// anything else is the exact revert data the model expects from the first hook that refuses.
    /// Returns whether every hook passed.
    function _run(
        address enforcer,
        bytes memory terms,
        bytes32 mode,
        bytes memory executionCallData,
        bytes memory want
    ) internal returns (bool ok) {
        calls++;
        bytes memory err;
        bytes4[4] memory hooks = [
            ICaveatEnforcer.beforeAllHook.selector,
            ICaveatEnforcer.beforeHook.selector,
            ICaveatEnforcer.afterHook.selector,
            ICaveatEnforcer.afterAllHook.selector
        ];
        for (uint256 i; i < hooks.length; ++i) {
            vm.prank(MANAGER);
            (ok, err) = enforcer.call(
                abi.encodeWithSelector(hooks[i], terms, bytes(""), mode, executionCallData, HASH, DELEGATOR, REDEEMER)
            );
            if (!ok) break;
        }
        if (ok) {
            if (want.length == 0) accepted++;
            else _mismatch(string.concat("accepted; the model refuses with ", _hex(want)));
        } else if (want.length == 0) {
            _mismatch(string.concat("refused with ", _hex(err), "; the model accepts"));
        } else if (keccak256(err) != keccak256(want)) {
            _mismatch(string.concat("refused with ", _hex(err), "; the model refuses with ", _hex(want)));
        }
    }

    function _mismatch(
        string memory why
    ) internal {
        mismatches++;
        lastMismatch = why;
    }

    // ------------------------------------------------------------------ encodings

    /// ModeCode: call type in byte 0, exec type in byte 1.
    function _mode(
        bytes1 callType,
        bytes1 execType
    ) internal pure returns (bytes32) {
        return bytes32(callType) | (bytes32(execType) >> 8);
    }

    /// The execution calldata the manager hands the hook: encodePacked for a single, encode for a batch.
    function _encode(
        Execution[] memory e,
        bool asBatch
    ) internal pure returns (bytes memory) {
        return asBatch ? abi.encode(e) : abi.encodePacked(e[0].target, e[0].value, e[0].callData);
    }

    function _truncate(
        bytes memory data,
        uint256 length
    ) internal pure returns (bytes memory out) {
        out = new bytes(length);
        for (uint256 i; i < length; ++i) {
            out[i] = data[i];
        }
    }

    // ------------------------------------------------------------------ model helpers

    /// The 32-byte word at `offset`, zero-padded past the end: what a token's CALLDATALOAD reads.
    function _wordAt(
        bytes memory data,
        uint256 offset
    ) internal pure returns (uint256 w) {
        for (uint256 i; i < 32; ++i) {
            w <<= 8;
            if (offset + i < data.length) w |= uint8(data[offset + i]);
        }
    }

    /// First four bytes, or 0 when there are fewer.
    function _selector(
        bytes memory data
    ) internal pure returns (bytes4) {
        if (data.length < 4) return bytes4(0);
        return bytes4(uint32(_wordAt(data, 0) >> 224));
    }

    /// A random-looking 256-bit stream from one seed.
    function _rand(
        uint256 seed,
        uint256 salt
    ) internal pure returns (uint256) {
        return uint256(keccak256(abi.encode(seed, salt)));
    }

    /// Log-uniform in [0, 10**maxDigits]: small, medium and huge amounts equally often.
    function _logAmount(
        uint256 r,
        uint256 maxDigits
    ) internal pure returns (uint256) {
        return bound(r >> 8, 0, 10 ** (r % (maxDigits + 1)));
    }

    function _hex(
        bytes memory data
    ) internal pure returns (string memory) {
        bytes memory digits = "0123456789abcdef";
        bytes memory out = new bytes(2 + 2 * data.length);
        out[0] = "0";
        out[1] = "x";
        for (uint256 i; i < data.length; ++i) {
            out[2 + 2 * i] = digits[uint8(data[i]) >> 4];
            out[3 + 2 * i] = digits[uint8(data[i]) & 0x0f];
        }
        return string(out);
    }
}
