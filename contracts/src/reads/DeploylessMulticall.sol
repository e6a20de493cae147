// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

/// @title DeploylessMulticall
/// @notice Many view calls at one block in one `eth_call`, with nothing deployed: the `eth_call` sets this
///         contract's runtime code at an unused address through the call's state override (geth's third
///         `eth_call` parameter) and calls `aggregate` there. Not a creation: a page of Golems reads more
///         than a creation may carry (49,152 bytes, EIP-3860) or return (24,576 bytes, EIP-170).
/// @dev Every call is a static call, and a failed call is reported, never bubbled, so the caller decides
///      what a failed read means. A call with empty calldata reads the target's ether balance.
contract DeploylessMulticall {
    struct Call {
        address target;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    /// @notice One result per call, in order.
    function aggregate(
        Call[] calldata calls
    ) external view returns (Result[] memory results) {
        results = new Result[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            Call calldata read = calls[i];
            if (read.callData.length == 0) {
                results[i] = Result(true, abi.encode(read.target.balance));
            } else {
                (bool success, bytes memory returnData) = read.target.staticcall(read.callData);
                results[i] = Result(success, returnData);
            }
        }
    }
}
