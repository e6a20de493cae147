// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "./lib/Test.sol";
import { TestToken } from "../src/test-assets/TestToken.sol";
import { TestVault } from "../src/test-assets/TestVault.sol";

contract TestVaultTest is Test {
    TestToken usdc;
    TestVault vault;
    address constant ALICE = address(0xA11CE);
    address constant BOB = address(0xB0B);

    function setUp() public {
        usdc = new TestToken("USD Coin", "USDC", 6);
        vault = new TestVault(address(usdc));
        usdc.mint(ALICE, 1_000_000e6);
        usdc.mint(BOB, 1_000_000e6);
        vm.prank(ALICE);
        usdc.approve(address(vault), type(uint256).max);
        vm.prank(BOB);
        usdc.approve(address(vault), type(uint256).max);
    }

    function test_metadata() public view {
        assertEq(vault.asset(), address(usdc));
        assertEq(uint256(vault.decimals()), 6);
        assertEq(vault.totalAssets(), 0);
        assertEq(vault.maxDeposit(ALICE), type(uint256).max);
        assertEq(vault.maxMint(ALICE), type(uint256).max);
    }

    function test_firstDepositIsOneToOne() public {
        vm.prank(ALICE);
        uint256 shares = vault.deposit(100e6, ALICE);
        assertEq(shares, 100e6);
        assertEq(vault.balanceOf(ALICE), 100e6);
        assertEq(vault.totalSupply(), 100e6);
        assertEq(vault.totalAssets(), 100e6);
    }

    function test_proportionalAfterDonation() public {
        vm.prank(ALICE);
        vault.deposit(100e6, ALICE);
        usdc.mint(address(vault), 100e6); // share price 2
        assertEq(vault.convertToAssets(1e6), 2e6);
        assertEq(vault.convertToShares(2e6), 1e6);
        vm.prank(BOB);
        assertEq(vault.deposit(50e6, BOB), 25e6);
        assertEq(vault.previewMint(3), 6);
        assertEq(vault.previewWithdraw(3), 2, "withdraw rounds shares up");
        assertEq(vault.previewRedeem(3), 6);
        assertEq(vault.maxWithdraw(BOB), 50e6);
        assertEq(vault.maxRedeem(BOB), 25e6);
    }

    function test_mintRoundsAssetsUp() public {
        vm.prank(ALICE);
        vault.deposit(3, ALICE);
        usdc.mint(address(vault), 1); // 4 assets / 3 shares
        uint256 before = usdc.balanceOf(BOB);
        vm.prank(BOB);
        uint256 assets = vault.mint(1, BOB);
        assertEq(assets, 2, "ceil(4/3)");
        assertEq(before - usdc.balanceOf(BOB), 2);
    }

    function test_withdrawAndRedeem() public {
        vm.prank(ALICE);
        vault.deposit(100e6, ALICE);
        vm.prank(ALICE);
        assertEq(vault.withdraw(40e6, BOB, ALICE), 40e6);
        assertEq(usdc.balanceOf(BOB), 1_000_040e6);
        vm.prank(ALICE);
        assertEq(vault.redeem(60e6, ALICE, ALICE), 60e6);
        assertEq(vault.totalSupply(), 0);
        assertEq(vault.totalAssets(), 0);
    }

    function test_thirdPartyRedeemNeedsAllowance() public {
        vm.prank(ALICE);
        vault.deposit(100e6, ALICE);
        vm.expectRevert(bytes("ERC20: insufficient allowance"));
        vm.prank(BOB);
        vault.redeem(1, BOB, ALICE);
        vm.prank(ALICE);
        vault.approve(BOB, 10e6);
        vm.prank(BOB);
        vault.redeem(10e6, BOB, ALICE);
        assertEq(vault.allowance(ALICE, BOB), 0);
    }

    function test_cannotRedeemMoreThanHeld() public {
        vm.prank(ALICE);
        vault.deposit(100e6, ALICE);
        vm.expectRevert(bytes("ERC4626: redeem more than max"));
        vm.prank(ALICE);
        vault.redeem(100e6 + 1, ALICE, ALICE);
    }

    function test_shareTransfers() public {
        vm.prank(ALICE);
        vault.deposit(100e6, ALICE);
        vm.prank(ALICE);
        vault.transfer(BOB, 30e6);
        assertEq(vault.balanceOf(BOB), 30e6);
        vm.expectRevert(bytes("ERC20: transfer amount exceeds balance"));
        vm.prank(BOB);
        vault.transfer(ALICE, 30e6 + 1);
        vm.expectRevert(bytes("ERC20: transfer to the zero address"));
        vm.prank(BOB);
        vault.transfer(address(0), 1);
        vm.expectRevert(bytes("ERC20: approve to the zero address"));
        vault.approve(address(0), 1);
        vm.prank(BOB);
        vault.approve(ALICE, type(uint256).max);
        vm.prank(ALICE);
        vault.transferFrom(BOB, ALICE, 30e6);
        assertEq(vault.allowance(BOB, ALICE), type(uint256).max, "infinite allowance is not spent");
    }

    function test_depositToZeroAddressRefused() public {
        vm.expectRevert(bytes("ERC20: mint to the zero address"));
        vm.prank(ALICE);
        vault.deposit(1, address(0));
    }

    function testFuzz_roundTripNeverProfits(
        uint256 seed,
        uint256 donation,
        uint256 amount
    ) public {
        seed = bound(seed, 1, 1e12);
        donation = bound(donation, 0, 1e12);
        amount = bound(amount, 0, 1e12);
        vm.prank(ALICE);
        vault.deposit(seed, ALICE);
        usdc.mint(address(vault), donation);
        vm.prank(BOB);
        uint256 shares = vault.deposit(amount, BOB);
        vm.prank(BOB);
        uint256 back = vault.redeem(shares, BOB, BOB);
        assertLe(back, amount, "a deposit-redeem round trip never returns more than it put in");
    }
}
