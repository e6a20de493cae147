// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "./lib/Test.sol";
import { DeploylessMulticall } from "../src/reads/DeploylessMulticall.sol";
import { TestToken } from "../src/test-assets/TestToken.sol";

/// Answers what it was told to, reverts with a reason, or writes (which a static call refuses).
contract MulticallTarget {
    uint256 public stored;

    function echo(
        bytes calldata data
    ) external pure returns (bytes calldata) {
        return data;
    }

    function fail(
        string calldata reason
    ) external pure {
        revert(reason);
    }

    function write() external {
        stored += 1;
    }
}

contract DeploylessMulticallTest is Test {
    MulticallTarget internal target;
    TestToken internal token;
    DeploylessMulticall internal multicall;

    function setUp() public {
        target = new MulticallTarget();
        token = new TestToken("Test", "TT", 6);
        multicall = new DeploylessMulticall();
    }

    function run(
        DeploylessMulticall.Call[] memory calls
    ) internal view returns (DeploylessMulticall.Result[] memory) {
        return multicall.aggregate(calls);
    }

    function call(
        address to,
        bytes memory data
    ) internal pure returns (DeploylessMulticall.Call memory) {
        return DeploylessMulticall.Call(to, data);
    }

    function test_readsEachCallInOrder() public {
        token.mint(address(0xA11CE), 42);
        DeploylessMulticall.Call[] memory calls = new DeploylessMulticall.Call[](3);
        calls[0] = call(address(token), abi.encodeCall(token.balanceOf, (address(0xA11CE))));
        calls[1] = call(address(token), abi.encodeCall(token.decimals, ()));
        calls[2] = call(address(target), abi.encodeCall(target.echo, (hex"c0ffee")));
        DeploylessMulticall.Result[] memory results = run(calls);
        assertEq(results.length, 3);
        for (uint256 i; i < 3; ++i) {
            assertTrue(results[i].success);
        }
        assertEq(abi.decode(results[0].returnData, (uint256)), 42);
        assertEq(abi.decode(results[1].returnData, (uint8)), 6);
        assertEq(abi.decode(results[2].returnData, (bytes)), hex"c0ffee", "echo");
    }

    function test_emptyCalldataReadsTheEtherBalance() public {
        vm.deal(address(0xB0B), 3 ether);
        DeploylessMulticall.Call[] memory calls = new DeploylessMulticall.Call[](2);
        calls[0] = call(address(0xB0B), "");
        calls[1] = call(address(0xCAFE), "");
        DeploylessMulticall.Result[] memory results = run(calls);
        assertTrue(results[0].success && results[1].success);
        assertEq(abi.decode(results[0].returnData, (uint256)), 3 ether);
        assertEq(abi.decode(results[1].returnData, (uint256)), 0);
    }

    function test_aFailedCallIsReportedNotBubbled() public view {
        DeploylessMulticall.Call[] memory calls = new DeploylessMulticall.Call[](3);
        calls[0] = call(address(target), abi.encodeCall(target.fail, ("no")));
        calls[1] = call(address(target), abi.encodeCall(target.write, ()));
        calls[2] = call(address(token), abi.encodeCall(token.decimals, ()));
        DeploylessMulticall.Result[] memory results = run(calls);
        assertFalse(results[0].success);
        assertEq(results[0].returnData, abi.encodeWithSignature("Error(string)", "no"), "revert data");
        // A static call refuses the write: nothing changed.
        assertFalse(results[1].success);
        assertEq(target.stored(), 0);
        assertTrue(results[2].success);
    }

    function test_aCallToNoCodeSucceedsEmpty() public view {
        DeploylessMulticall.Call[] memory calls = new DeploylessMulticall.Call[](1);
        calls[0] = call(address(0xDEAD), abi.encodeCall(token.decimals, ()));
        DeploylessMulticall.Result[] memory results = run(calls);
        assertTrue(results[0].success);
        assertEq(results[0].returnData.length, 0);
    }

    function test_noCallsNoResults() public view {
        assertEq(run(new DeploylessMulticall.Call[](0)).length, 0);
    }

    /// Results past EIP-170's 24,576 bytes, which a creation could not return, come back whole.
    function test_resultsLargerThanAnyRuntimeCode() public view {
        bytes memory big = new bytes(30_000);
        big[29_999] = 0x01;
        DeploylessMulticall.Call[] memory calls = new DeploylessMulticall.Call[](1);
        calls[0] = call(address(target), abi.encodeCall(target.echo, (big)));
        DeploylessMulticall.Result[] memory results = run(calls);
        assertEq(abi.decode(results[0].returnData, (bytes)), big, "30,000 bytes");
    }

    function testFuzz_eachResultIsItsCallsAnswer(
        bytes[] memory payloads,
        uint96[] memory balances
    ) public {
        uint256 n = payloads.length < 16 ? payloads.length : 16;
        uint256 m = balances.length < 16 ? balances.length : 16;
        DeploylessMulticall.Call[] memory calls = new DeploylessMulticall.Call[](n + m);
        for (uint256 i; i < n; ++i) {
            calls[i] = call(address(target), abi.encodeCall(target.echo, (payloads[i])));
        }
        for (uint256 j; j < m; ++j) {
            address account = address(uint160(0x1000 + j));
            vm.deal(account, balances[j]);
            calls[n + j] = call(account, "");
        }
        DeploylessMulticall.Result[] memory results = run(calls);
        assertEq(results.length, n + m);
        for (uint256 i; i < n; ++i) {
            assertTrue(results[i].success);
            assertEq(abi.decode(results[i].returnData, (bytes)), payloads[i], "payload");
        }
        for (uint256 j; j < m; ++j) {
            assertEq(abi.decode(results[n + j].returnData, (uint256)), balances[j]);
        }
    }
}
