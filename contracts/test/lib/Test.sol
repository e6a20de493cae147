// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

// A minimal stand-in for forge-std (no current release is on the npm registry): the cheatcodes and
// assertions these tests use, declared against Foundry's cheatcode address.

interface Vm {
    function warp(
        uint256 newTimestamp
    ) external;
    function roll(
        uint256 newHeight
    ) external;
    function prank(
        address msgSender
    ) external;
    function startPrank(
        address msgSender
    ) external;
    function stopPrank() external;
    function deal(
        address account,
        uint256 newBalance
    ) external;
    function expectRevert() external;
    function expectRevert(
        bytes calldata revertData
    ) external;
    function expectRevert(
        bytes4 revertData
    ) external;
    function expectEmit(
        bool checkTopic1,
        bool checkTopic2,
        bool checkTopic3,
        bool checkData
    ) external;
    function expectEmit() external;
    function assume(
        bool condition
    ) external pure;
    function addr(
        uint256 privateKey
    ) external pure returns (address keyAddr);
    function sign(
        uint256 privateKey,
        bytes32 digest
    ) external pure returns (uint8 v, bytes32 r, bytes32 s);
    function label(
        address account,
        string calldata newLabel
    ) external;
    function snapshotState() external returns (uint256 snapshotId);
    function revertToState(
        uint256 snapshotId
    ) external returns (bool success);
    function record() external;
    function getBlockTimestamp() external view returns (uint256);

    // Added for the oracle / phase-enforcer / TestUSDC suites.
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }
    function chainId(
        uint256 newChainId
    ) external;
    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory logs);
    function etch(
        address target,
        bytes calldata newRuntimeBytecode
    ) external;
}

abstract contract Test {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    bool public IS_TEST = true;

    address[] private _targetContracts;
    address[] private _targetSenders;

    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    FuzzSelector[] private _targetSelectors;

    // Invariant-testing configuration, read by forge.
    function targetContracts() public view returns (address[] memory) {
        return _targetContracts;
    }

    function targetSenders() public view returns (address[] memory) {
        return _targetSenders;
    }

    function targetSelectors() public view returns (FuzzSelector[] memory) {
        return _targetSelectors;
    }

    function targetContract(
        address target
    ) internal {
        _targetContracts.push(target);
    }

    function targetSender(
        address sender
    ) internal {
        _targetSenders.push(sender);
    }

    function targetSelector(
        FuzzSelector memory selector
    ) internal {
        _targetSelectors.push(selector);
    }

    function fail(
        string memory message
    ) internal pure {
        revert(string.concat("assertion failed: ", message));
    }

    function assertTrue(
        bool condition,
        string memory message
    ) internal pure {
        if (!condition) fail(message);
    }

    function assertTrue(
        bool condition
    ) internal pure {
        assertTrue(condition, "expected true");
    }

    function assertFalse(
        bool condition,
        string memory message
    ) internal pure {
        if (condition) fail(message);
    }

    function assertFalse(
        bool condition
    ) internal pure {
        assertFalse(condition, "expected false");
    }

    function assertEq(
        uint256 a,
        uint256 b,
        string memory message
    ) internal pure {
        if (a != b) fail(string.concat(message, ": ", _u(a), " != ", _u(b)));
    }

    function assertEq(
        uint256 a,
        uint256 b
    ) internal pure {
        assertEq(a, b, "uint mismatch");
    }

    function assertEq(
        int256 a,
        int256 b,
        string memory message
    ) internal pure {
        if (a != b) fail(message);
    }

    function assertEq(
        int256 a,
        int256 b
    ) internal pure {
        assertEq(a, b, "int mismatch");
    }

    function assertEq(
        address a,
        address b,
        string memory message
    ) internal pure {
        if (a != b) fail(message);
    }

    function assertEq(
        address a,
        address b
    ) internal pure {
        assertEq(a, b, "address mismatch");
    }

    function assertEq(
        bytes32 a,
        bytes32 b,
        string memory message
    ) internal pure {
        if (a != b) fail(message);
    }

    function assertEq(
        bytes32 a,
        bytes32 b
    ) internal pure {
        assertEq(a, b, "bytes32 mismatch");
    }

    function assertEq(
        bool a,
        bool b,
        string memory message
    ) internal pure {
        if (a != b) fail(message);
    }

    function assertEq(
        bool a,
        bool b
    ) internal pure {
        assertEq(a, b, "bool mismatch");
    }

    function assertEq(
        bytes memory a,
        bytes memory b,
        string memory message
    ) internal pure {
        if (keccak256(a) != keccak256(b)) fail(message);
    }

    function assertLe(
        uint256 a,
        uint256 b,
        string memory message
    ) internal pure {
        if (a > b) fail(string.concat(message, ": ", _u(a), " > ", _u(b)));
    }

    function assertLe(
        uint256 a,
        uint256 b
    ) internal pure {
        assertLe(a, b, "expected a <= b");
    }

    function assertGe(
        uint256 a,
        uint256 b,
        string memory message
    ) internal pure {
        if (a < b) fail(string.concat(message, ": ", _u(a), " < ", _u(b)));
    }

    function assertGe(
        uint256 a,
        uint256 b
    ) internal pure {
        assertGe(a, b, "expected a >= b");
    }

    function assertLt(
        uint256 a,
        uint256 b,
        string memory message
    ) internal pure {
        if (a >= b) fail(string.concat(message, ": ", _u(a), " >= ", _u(b)));
    }

    function assertGt(
        uint256 a,
        uint256 b,
        string memory message
    ) internal pure {
        if (a <= b) fail(string.concat(message, ": ", _u(a), " <= ", _u(b)));
    }

    /// @notice Maps x into [min, max] the way forge-std's bound does, for fuzz inputs.
    function bound(
        uint256 x,
        uint256 min,
        uint256 max
    ) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        if (x >= min && x <= max) return x;
        uint256 size = max - min + 1;
        if (size == 0) return x; // full range
        return min + (x % size);
    }

    function _u(
        uint256 v
    ) private pure returns (string memory) {
        if (v == 0) return "0";
        uint256 len;
        for (uint256 t = v; t != 0; t /= 10) {
            len++;
        }
        bytes memory b = new bytes(len);
        for (; v != 0; v /= 10) {
            b[--len] = bytes1(uint8(48 + (v % 10)));
        }
        return string(b);
    }
}
