// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PricedAssetsTest } from "./helpers/PricedAssetsTest.sol";
import { TestSwapRouter } from "../src/test-assets/TestSwapRouter.sol";
import { MaxSlippageEnforcer } from "../src/enforcers/MaxSlippageEnforcer.sol";

contract TestSwapRouterTest is PricedAssetsTest {
    TestSwapRouter router;
    address constant TRADER = address(0x7EAD);

    function setUp() public {
        setUpAssets();
        router = new TestSwapRouter();
        router.setFeed(address(usdc), address(usdcFeed));
        router.setFeed(address(weth), address(wethFeed));
        router.setFeed(address(dai), address(daiFeed));
        usdc.mint(address(router), 1_000_000e6);
        weth.mint(address(router), 1000e18);
        dai.mint(address(router), 1_000_000e18);
        usdc.mint(TRADER, 100_000e6);
        vm.prank(TRADER);
        usdc.approve(address(router), type(uint256).max);
    }

    function _single(
        address tIn,
        address tOut,
        uint24 fee,
        address to,
        uint256 amountIn,
        uint256 minOut
    ) internal pure returns (TestSwapRouter.ExactInputSingleParams memory) {
        return TestSwapRouter.ExactInputSingleParams(tIn, tOut, fee, to, amountIn, minOut, 0);
    }

    function test_exactInputSinglePaysAtFeedPriceMinusFee() public {
        vm.prank(TRADER);
        uint256 out = router.exactInputSingle(_single(address(usdc), address(weth), 3000, PAYEE, 3000e6, 0));
        assertEq(out, 0.997e18, "0.3 % fee");
        assertEq(weth.balanceOf(PAYEE), 0.997e18);
        assertEq(usdc.balanceOf(TRADER), 97_000e6);
        assertEq(usdc.balanceOf(address(router)), 1_003_000e6);
    }

    function test_tooLittleReceived() public {
        vm.expectRevert(bytes("Too little received"));
        vm.prank(TRADER);
        router.exactInputSingle(_single(address(usdc), address(weth), 3000, PAYEE, 3000e6, 0.997e18 + 1));
        vm.prank(TRADER);
        router.exactInputSingle(_single(address(usdc), address(weth), 3000, PAYEE, 3000e6, 0.997e18));
    }

    function test_recipientConstants() public {
        vm.prank(TRADER);
        router.exactInputSingle(_single(address(usdc), address(weth), 0, address(1), 3000e6, 0));
        assertEq(weth.balanceOf(TRADER), 1e18, "address(1) = msg.sender");
        uint256 before = weth.balanceOf(address(router));
        vm.prank(TRADER);
        router.exactInputSingle(_single(address(usdc), address(weth), 0, address(2), 3000e6, 0));
        assertEq(weth.balanceOf(address(router)), before, "address(2) = router keeps it");
    }

    function test_exactInputMultiHopAppliesEveryFee() public {
        bytes memory path = abi.encodePacked(address(usdc), uint24(500), address(weth), uint24(3000), address(dai));
        vm.prank(TRADER);
        uint256 out = router.exactInput(TestSwapRouter.ExactInputParams(path, PAYEE, 3000e6, 0));
        // 3000 USDC * 0.9995 = 2998.5 USDC worth of WETH, * 0.997 = 2989.5045 DAI
        assertEq(out, 2989.5045e18);
        assertEq(dai.balanceOf(PAYEE), out);
        assertEq(weth.balanceOf(PAYEE), 0, "intermediate tokens never move");
    }

    function test_exactInputTooLittleReceived() public {
        bytes memory path = abi.encodePacked(address(usdc), uint24(0), address(dai));
        vm.expectRevert(bytes("Too little received"));
        vm.prank(TRADER);
        router.exactInput(TestSwapRouter.ExactInputParams(path, PAYEE, 1e6, 1e18 + 1));
    }

    function test_invalidPath() public {
        vm.expectRevert(bytes("Invalid path"));
        router.exactInput(TestSwapRouter.ExactInputParams(abi.encodePacked(address(usdc)), PAYEE, 1, 0));
        vm.expectRevert(bytes("Invalid path"));
        router.exactInput(
            TestSwapRouter.ExactInputParams(abi.encodePacked(address(usdc), uint24(0), address(dai), uint8(0)), PAYEE, 1, 0)
        );
    }

    function test_refusals() public {
        vm.expectRevert(bytes("No feed"));
        router.quoteHop(address(unlisted), address(usdc), 0, 1);
        vm.expectRevert(bytes("Invalid fee"));
        router.quoteHop(address(usdc), address(dai), 1_000_000, 1);
        daiFeed.setAnswer(0);
        vm.expectRevert(bytes("Invalid price"));
        router.quoteHop(address(usdc), address(dai), 0, 1);
    }

    function test_routerBalanceLimitsPayout() public {
        wethFeed.setAnswer(1e8); // WETH at $1: 100,000 USDC would buy 100,000 WETH, the router holds 1000
        vm.expectRevert(bytes("ERC20: transfer amount exceeds balance"));
        vm.prank(TRADER);
        router.exactInputSingle(_single(address(usdc), address(weth), 0, PAYEE, 100_000e6, 0));
    }

    function test_callerMustApprove() public {
        usdc.mint(PAYEE, 1e6);
        vm.expectRevert(bytes("ERC20: transfer amount exceeds allowance"));
        vm.prank(PAYEE);
        router.exactInputSingle(_single(address(usdc), address(dai), 0, PAYEE, 1e6, 0));
    }

    function test_enforcerAndRouterAgree() public {
        MaxSlippageEnforcer enforcer = new MaxSlippageEnforcer();
        bytes memory terms = abi.encode(uint16(30), MAX_AGE, tokenFeedsOnly());
        uint256 out = router.quoteHop(address(usdc), address(weth), 3000, 3000e6);
        bytes memory cd = abi.encodeWithSelector(
            TestSwapRouter.exactInputSingle.selector, _single(address(usdc), address(weth), 3000, TRADER, 3000e6, out)
        );
        enforcer.beforeHook(terms, "", SINGLE, single(address(router), 0, cd), HASH, DELEGATOR, REDEEMER);
        vm.prank(TRADER);
        (bool swapped, bytes memory ret) = address(router).call(cd);
        assertTrue(swapped, "router accepts the same calldata the enforcer decoded");
        assertEq(abi.decode(ret, (uint256)), out);
    }

    function testFuzz_outputMatchesReference(
        uint256 amountIn,
        uint24 fee,
        uint256 ethPrice
    ) public {
        amountIn = bound(amountIn, 0, 100_000e6);
        fee = uint24(bound(fee, 0, 999_999));
        ethPrice = bound(ethPrice, 1e8, 1e13);
        wethFeed.setAnswer(int256(ethPrice));
        uint256 net = amountIn * (1_000_000 - fee) / 1_000_000;
        uint256 expected = net * 1e8 * 1e26 / (ethPrice * 1e14);
        assertEq(router.quoteHop(address(usdc), address(weth), fee, amountIn), expected);
    }
}
