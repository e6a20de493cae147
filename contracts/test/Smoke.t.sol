// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "./lib/Test.sol";
import { ExecutionLib, Execution } from "../src/libraries/ExecutionLib.sol";

contract ExecutionLibHarness {
    function decode(
        bytes32 mode,
        bytes calldata data
    ) external pure returns (Execution[] memory) {
        return ExecutionLib.decode(mode, data);
    }
}

contract ExecutionLibTest is Test {
    ExecutionLibHarness h = new ExecutionLibHarness();

    function testFuzz_singleRoundTrip(
        address target,
        uint256 value,
        bytes calldata callData
    ) public view {
        Execution[] memory e = h.decode(bytes32(0), abi.encodePacked(target, value, callData));
        assertEq(e.length, 1);
        assertEq(e[0].target, target);
        assertEq(e[0].value, value);
        assertEq(e[0].callData, callData, "calldata");
    }

    function test_rejectsShortSingle() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.MalformedExecution.selector, uint256(51)));
        h.decode(bytes32(0), new bytes(51));
    }

    function test_rejectsUnknownCallType() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0xff)));
        h.decode(bytes32(bytes1(0xff)), new bytes(60));
    }
}
