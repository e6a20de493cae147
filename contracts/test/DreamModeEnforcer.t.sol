// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { GolemHookTest } from "./lib/GolemHookTest.sol";
import { DreamModeEnforcer } from "../src/enforcers/DreamModeEnforcer.sol";
import { DreamOracle } from "../src/oracles/DreamOracle.sol";
import { ICaveatEnforcer } from "../src/interfaces/ICaveatEnforcer.sol";
import { Execution } from "../src/libraries/ExecutionLib.sol";

contract DreamModeEnforcerTest is GolemHookTest {
    DreamOracle internal oracle;
    DreamModeEnforcer internal enforcer;
    address internal constant GOLEM = address(0x601E);
    address internal constant OTHER = address(0x602E);
    address internal constant TARGET = address(0x7A46E7);

    function setUp() public {
        vm.warp(1_700_000_000);
        oracle = new DreamOracle();
        enforcer = new DreamModeEnforcer(address(oracle));
    }

    function _hook(
        address golem,
        bytes32 mode,
        bytes memory execution
    ) internal {
        _before(ICaveatEnforcer(address(enforcer)), abi.encodePacked(golem), mode, execution, golem);
    }

    function _dream(
        address golem
    ) internal {
        vm.prank(golem);
        oracle.startDream();
    }

    function test_constructor_revertsOnZeroOracle() public {
        vm.expectRevert(DreamModeEnforcer.ZeroAddress.selector);
        new DreamModeEnforcer(address(0));
    }

    function test_passesWhileAwake() public {
        _hook(GOLEM, SINGLE, _single(TARGET, 0, hex"a9059cbb"));
        assertEq(address(enforcer.dreamOracle()), address(oracle));
    }

    function test_revertsWhileDreaming() public {
        _dream(GOLEM);
        uint64 since = uint64(block.timestamp);
        vm.warp(block.timestamp + 1 hours);
        vm.expectRevert(abi.encodeWithSelector(DreamModeEnforcer.GolemDreaming.selector, GOLEM, since));
        _hook(GOLEM, SINGLE, _single(TARGET, 0, hex"a9059cbb"));
    }

    function test_revertsForEveryCallShapeWhileDreaming() public {
        _dream(GOLEM);
        bytes memory err = abi.encodeWithSelector(DreamModeEnforcer.GolemDreaming.selector, GOLEM, uint64(block.timestamp));
        vm.expectRevert(err);
        _hook(GOLEM, SINGLE, _single(TARGET, 1 ether, ""));
        Execution[] memory ex = new Execution[](2);
        ex[0] = _exec(TARGET, hex"a9059cbb");
        ex[1] = _exec(TARGET, hex"ba087652");
        vm.expectRevert(err);
        _hook(GOLEM, BATCH, _batch(ex));
        vm.expectRevert(err);
        _hook(GOLEM, SINGLE_TRY, _single(TARGET, 0, ""));
    }

    function test_passesAgainAfterWaking() public {
        _dream(GOLEM);
        vm.prank(GOLEM);
        oracle.endDream();
        _hook(GOLEM, SINGLE, _single(TARGET, 0, hex"a9059cbb"));
    }

    function test_anotherGolemsDreamDoesNotBlock() public {
        _dream(OTHER);
        _hook(GOLEM, SINGLE, _single(TARGET, 0, hex"a9059cbb"));
    }

    function testFuzz_revertsOnWrongLength(
        bytes calldata terms
    ) public {
        vm.assume(terms.length != 20);
        vm.expectRevert(abi.encodeWithSelector(DreamModeEnforcer.InvalidTermsLength.selector, terms.length));
        _before(ICaveatEnforcer(address(enforcer)), terms, SINGLE, _single(TARGET, 0, ""), GOLEM);
    }

    function testFuzz_blocksIffDreaming(
        address golem,
        bool dreaming,
        uint32 elapsed
    ) public {
        vm.assume(golem != address(0));
        if (dreaming) _dream(golem);
        vm.warp(block.timestamp + elapsed);
        bool ok = _passes(ICaveatEnforcer(address(enforcer)), abi.encodePacked(golem), SINGLE, _single(TARGET, 0, ""), golem);
        assertEq(ok, !dreaming);
    }

    function test_getTermsInfo() public {
        assertEq(enforcer.getTermsInfo(abi.encodePacked(GOLEM)), GOLEM);
        vm.expectRevert(abi.encodeWithSelector(DreamModeEnforcer.InvalidTermsLength.selector, uint256(32)));
        enforcer.getTermsInfo(abi.encode(GOLEM));
    }

    event log_named_uint(string key, uint256 val);

    function test_gas_beforeHook() public {
        bytes memory terms = abi.encodePacked(GOLEM);
        bytes memory ex = _single(TARGET, 0, hex"a9059cbb");
        vm.prank(MANAGER);
        uint256 g = gasleft();
        enforcer.beforeHook(terms, "", SINGLE, ex, HASH, DELEGATOR, GOLEM);
        emit log_named_uint("DreamMode.beforeHook (cold)", g - gasleft());
    }
}
