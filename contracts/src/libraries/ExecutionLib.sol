// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @notice One call the delegator's account will make (ERC-7579 Execution).
struct Execution {
    address target;
    uint256 value;
    bytes callData;
}

/// @title ExecutionLib
/// @notice Decodes the execution calldata the DelegationManager passes to caveat hooks.
/// @dev Single call type: abi.encodePacked(target, value, callData). Batch call type:
///      abi.encode(Execution[]). The call type is the first byte of the ModeCode, the exec type the second.
library ExecutionLib {
    bytes1 internal constant CALLTYPE_SINGLE = 0x00;
    bytes1 internal constant CALLTYPE_BATCH = 0x01;
    bytes1 internal constant EXECTYPE_DEFAULT = 0x00;

    error UnsupportedCallType(bytes1 callType);
    error UnsupportedExecType(bytes1 execType);
    error MalformedExecution(uint256 length);

    function callType(
        bytes32 mode
    ) internal pure returns (bytes1) {
        return bytes1(mode);
    }

    function execType(
        bytes32 mode
    ) internal pure returns (bytes1) {
        return bytes1(mode << 8);
    }

    /// @notice Reverts unless the mode is single call type with default (reverting) exec type.
    function requireSingleDefault(
        bytes32 mode
    ) internal pure {
        if (callType(mode) != CALLTYPE_SINGLE) revert UnsupportedCallType(callType(mode));
        if (execType(mode) != EXECTYPE_DEFAULT) revert UnsupportedExecType(execType(mode));
    }

    /// @notice Reverts unless the exec type is default; a try-mode execution could fail silently after a
    ///         stateful enforcer has already counted it.
    function requireDefaultExec(
        bytes32 mode
    ) internal pure {
        if (execType(mode) != EXECTYPE_DEFAULT) revert UnsupportedExecType(execType(mode));
    }

    function decodeSingle(
        bytes calldata executionCallData
    ) internal pure returns (address target, uint256 value, bytes calldata callData) {
        if (executionCallData.length < 52) revert MalformedExecution(executionCallData.length);
        target = address(bytes20(executionCallData[0:20]));
        value = uint256(bytes32(executionCallData[20:52]));
        callData = executionCallData[52:];
    }

    function decodeBatch(
        bytes calldata executionCallData
    ) internal pure returns (Execution[] memory executions) {
        executions = abi.decode(executionCallData, (Execution[]));
    }

    /// @notice Decodes either call type into a list, so an enforcer can check every call the same way.
    function decode(
        bytes32 mode,
        bytes calldata executionCallData
    ) internal pure returns (Execution[] memory executions) {
        bytes1 ct = callType(mode);
        if (ct == CALLTYPE_SINGLE) {
            (address target, uint256 value, bytes calldata callData) = decodeSingle(executionCallData);
            executions = new Execution[](1);
            executions[0] = Execution(target, value, callData);
        } else if (ct == CALLTYPE_BATCH) {
            executions = decodeBatch(executionCallData);
        } else {
            revert UnsupportedCallType(ct);
        }
    }

    /// @notice The 4-byte selector of a call, or 0 for a plain value transfer (empty calldata).
    function selectorOf(
        bytes memory callData
    ) internal pure returns (bytes4 selector) {
        if (callData.length < 4) return bytes4(0);
        assembly {
            selector := mload(add(callData, 32))
        }
    }
}
